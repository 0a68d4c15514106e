//go:build !linux

package controller

import (
	"context"
	"net"
)

// RawIODialer is d's DialContext: raw system calls are used on Linux
// only (rawio_linux.go says why).
func RawIODialer(d *net.Dialer) func(ctx context.Context, network, address string) (net.Conn, error) {
	return d.DialContext
}
