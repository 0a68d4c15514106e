package cache

import "hash/fnv"

// Shard is the worker that handles every request of the job
// namespace/name: FNV-32 (not FNV-32a, as Volcano) of the key, modulo
// workers. One worker per job keeps a job's requests in order.
func Shard(namespace, name string, workers int) int {
	if workers <= 1 {
		return 0
	}
	h := fnv.New32()
	h.Write([]byte(namespace + "/" + name))
	return int(h.Sum32() % uint32(workers))
}
