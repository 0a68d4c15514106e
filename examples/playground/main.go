// Command playground serves a page on which one pastes a Volcano Job
// manifest and a scenario and sees, as one types, the validation errors
// with their field paths, the lint findings, the explain table and the
// simulated run as a timeline. Three ready examples are in its menu: a
// PyTorch job with an OOM-killed worker, an MPI job losing a worker, and a
// job whose PodPending timeout aborts it.
//
//	go run ./examples/playground            # http://localhost:8080
//	go run ./examples/playground -addr :9000
//
// The page is answered by vcjob running in this process, not compiled to
// WebAssembly: see package examples/playground/server for why. Nothing is
// fetched from the network.
package main

import (
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/vcjob/vcjob/examples/playground/server"
)

func main() {
	addr := flag.String("addr", "localhost:8080", "address to listen on")
	flag.Parse()
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "playground:", err)
		os.Exit(1)
	}
	fmt.Printf("vcjob playground on http://%s/\n", ln.Addr())
	srv := &http.Server{Handler: server.Handler(), ReadHeaderTimeout: 10 * time.Second}
	log.Fatal(srv.Serve(ln))
}
