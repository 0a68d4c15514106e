package vcjob

// Names of the job plugins Volcano builds in (the keys of spec.plugins).
const (
	PluginEnv        = "env"
	PluginSvc        = "svc"
	PluginSSH        = "ssh"
	PluginPytorch    = "pytorch"
	PluginTensorflow = "tensorflow"
	PluginMPI        = "mpi"
	PluginRay        = "ray"
	PluginHCCLRank   = "hcclrank"
)

// BuiltinPluginNames lists the plugins Volcano builds in; validation
// accepts these and whatever validation.Options.ExtraPlugins adds. The slice
// is new on every call.
func BuiltinPluginNames() []string {
	return []string{PluginEnv, PluginSvc, PluginSSH, PluginPytorch, PluginTensorflow, PluginMPI, PluginRay, PluginHCCLRank}
}
