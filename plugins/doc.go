// Package plugins owns the job plugins of Volcano's batch Job (the keys of
// spec.plugins) as pure functions: the Plugin interface, a Registry that
// builds a job's plugins from their arguments, and the eight built-ins
// env, svc, ssh, pytorch, tensorflow, mpi, ray and hcclrank.
//
// A plugin never calls a cluster. OnPodCreate edits the pod it is handed
// before the controller creates it; OnJobAdd, OnJobUpdate and OnJobDelete
// return Objects (typed Services, ConfigMaps, Secrets and NetworkPolicies to
// apply, references to delete) and change nothing of the job but
// status.controlledResources, where a plugin records itself as
// "plugin-<name>": "<name>" on add and removes that on delete, as Volcano
// does. OnJobAdd does nothing when the record is already there. A second
// run of a job hook asks for nothing new; OnPodCreate runs once per pod, as
// in Volcano, which appends the env vars it sets (WithReplacedEnv makes it
// idempotent).
//
// By default a registry's plugins write what Volcano's write, object for
// object. Arguments are parsed as Volcano parses them, with Go's flag
// package, one flag set per plugin, ContinueOnError: a bad argument is a
// Warning (BuildAll returns them) and the flags after it are not read.
// vcjob's own choices are options: WithStrictArguments (a bad argument is
// an error naming the plugin and the argument), WithObjectLabels (plugin
// objects labelled with the job), WithReplacedEnv (a variable the template
// sets is replaced, not appended a second time). The standalone
// constructors (NewSvc, ...) report bad arguments as errors. Ssh keys come
// only from an injected KeySource; the package never generates keys.
//
//	reg := plugins.NewRegistry(plugins.WithSSHKeys(keySource))
//	ps, warnings, err := reg.BuildAll(job) // job.spec.plugins, in sorted name order
//	if err != nil {
//		return err // unknown plugin, no key source
//	}
//	for _, w := range warnings {
//		log.Print(w) // Volcano logs these and goes on
//	}
//	for _, p := range ps {
//		objs, err := p.OnJobAdd(job) // apply objs.Apply, delete objs.Delete
//		...
//	}
//	for _, p := range ps {
//		if err := p.OnPodCreate(pod, job); err != nil { ... }
//	}
//
// # Built-in plugins
//
// Host names below are those the svc plugin makes resolvable:
// <job>-<task>-<index>.<job>, where a task template's hostname or subdomain
// replaces the first or second part (and a template hostname makes one host
// for the whole task).
//
// env (no arguments): sets VK_TASK_INDEX and VC_TASK_INDEX, the pod's index
// (what follows the last "-" of its name), in every container and init
// container.
//
// svc: sets the pod's hostname to its name and subdomain to the job name
// (unless set); mounts ConfigMap <job>-svc at /etc/volcano in every
// container and init container; sets VC_<TASK>_HOSTS and VC_<TASK>_NUM of
// every task (task name upper-cased, "-" → "_") from that ConfigMap. Objects:
// ConfigMap <job>-svc (per task "<task>.host" = host names one per line,
// VC_<TASK>_HOSTS = comma-separated, VC_<TASK>_NUM = count), headless
// Service <job> selecting the job's pods, and NetworkPolicy <job> admitting
// ingress only from the job's pods. OnJobUpdate rewrites the ConfigMap.
// Arguments:
//
//	--publish-not-ready-addresses=false  Service.spec.publishNotReadyAddresses
//	--disable-network-policy=false       no NetworkPolicy
//	--inject-hosts-env=true              false: no VC_<TASK>_* env (files stay)
//	--network-policy-strategy=""         allow|allow-related|allow-stateless|drop|reject,
//	                                     as annotation ovn.kubernetes.io/network_policy_strategy
//
// ssh: mounts Secret <job>-ssh (files .ssh/id_rsa, .ssh/id_rsa.pub,
// .ssh/authorized_keys, .ssh/config, mode 0600) as a subPath at the key path
// in every container and init container. Object: Secret <job>-ssh with
// id_rsa, id_rsa.pub, authorized_keys (= the public key) and config
// ("StrictHostKeyChecking no", "UserKnownHostsFile /dev/null", then per pod
// "Host <short name>", "  HostName <host name>", "  Port <port>"). Arguments:
//
//	--ssh-key-file-path=/root/.ssh  mount path
//	--ssh-private-key=""            use this key instead of the KeySource
//	--ssh-public-key=""             its public key
//	--ssh-port=22                   Port in the config
//
// pytorch: in every container of every pod (when the master task exists)
// opens container port "pytorchjob-port" and sets MASTER_ADDR (master pod 0's
// host name), MASTER_PORT, WORLD_SIZE (master + worker replicas) and, for
// master and worker pods, RANK (0; worker index + 1). With
// --wait-master-enabled, worker pods get init container "wait-for-master"
// that waits until the master resolves and its port answers. Arguments:
//
//	--master=master  --worker=worker  --port=23456
//	--wait-master-enabled=false      add the init container
//	--wait-master-timeout=300        seconds it waits
//	--wait-master-image=busybox:1.36.1
//
// tensorflow: sets TF_CONFIG in every container, unless the job is one task
// of one replica: {"cluster":{"ps":[...],"worker":[...],"chief":[...],
// "evaluator":[...]},"task":{"type":<role>,"index":<pod index>}}, each list
// "<host name>:<port>" per replica, empty roles left out. Arguments:
//
//	--ps=ps  --worker=worker  --chief=chief  --evaluator=evaluator  --port=2222
//
// mpi: opens container port "mpijob-port" in every container and init
// container; the master pod gets MPI_HOST, the worker host names joined by
// ",". Arguments:
//
//	--master=master  --worker=worker  --port=22
//
// ray: the head task's head container gets ports gcs, dashboard and
// client-server and the command sh -c "ray start --head --block
// --dashboard-host=0.0.0.0 --port=P --dashboard-port=D
// --ray-client-server-port=C"; the worker task's worker container gets sh -c
// "ray start --block --address=<head pod 0 host name>:P". Object: Service
// <job>-head-svc selecting the head pods, ports gcs/dashboard/client-server
// to the named container ports. A job without the head task is an error.
// Arguments:
//
//	--head=head  --headContainer=head  --worker=worker  --workerContainer=worker
//	--port=6379  --dashboardPort=8265  --clientPort=10001
//
// hcclrank: annotates the pod hccl/rankIndex (unless set) with the first
// RANK env value of its containers, or for master pods their
// volcano.sh/task-index label and for worker pods the master replicas plus
// that label. Records nothing in controlledResources (as Volcano).
// Arguments:
//
//	--master=master  --worker=worker
//
// # Where this differs from Volcano
//
// With no option: an mpi master pod in a job without the worker task is
// left as rendered (Volcano's plugin returns early). A volume or init
// container a plugin sets replaces one of the same name. Plugins run in
// sorted name order (Volcano iterates a map, so where the order matters
// one pod can come out in several ways; the conformance vectors record
// every one, and vcjob's order gives one of them). The options above are
// vcjob's own choices, listed in the README.
//
// # Where things are
//
//	plugin.go          Plugin, Objects, ObjectRef, ControlledResourceKey; host names and pod edits shared by plugins
//	registry.go        Registry, NewRegistry, the With* options, Build, BuildAll, ArgError, argument parsing
//	mode.go            Warning, Warner: arguments read as Volcano reads them, or as the options say
//	keysource.go       KeySource, KeySourceFunc, FixedKeySource, TestKeySource
//	env.go             NewEnv: VK_TASK_INDEX, VC_TASK_INDEX
//	svc.go             NewSvc: hostnames, the <job>-svc ConfigMap, Service and NetworkPolicy
//	ssh.go             NewSSH: the <job>-ssh Secret and its mount
//	pytorch.go         NewPytorch: MASTER_ADDR, WORLD_SIZE, RANK, the wait-for-master init container
//	tensorflow.go      NewTensorflow: TF_CONFIG
//	mpi.go             NewMPI, MPIHostList: MPI_HOST
//	ray.go             NewRay, RayHeadServiceName: head and worker commands, the head Service
//	hcclrank.go        NewHCCLRank: the hccl/rankIndex annotation
//	*_test.go          a test beside each plugin; registry_test.go, mode_test.go: Build and Volcano's defaults
//	property_test.go   TestEveryHookIsIdempotent (rapid): a second run of a hook asks for nothing new
package plugins
