package controller

import (
	"context"
	"io"
	"net"
	"os"
	"syscall"
	"unsafe"
)

// Why raw system calls. A Go program's reads and writes on a socket are
// system calls the scheduler is told about (entersyscall), so that a
// call which blocks gives its P to another thread. When the whole
// program has been idle, the runtime's monitor thread (sysmon) sleeps,
// and the first such call wakes it, with a futex, to watch over the call;
// it then polls every 20 µs until the program is idle again. A controller
// is idle between most watch events, so nearly every event pays for that
// wake-up and a few polls: on a VM, where each of them is a trip through
// the hypervisor, a third of the controller's CPU at 50 jobs × 20 pods
// (README, "Cost"). A socket of Go's net package is non-blocking: a read
// or write returns at once (with EAGAIN when it would block), so nothing
// needs watching. RawSyscall makes the same call without telling the
// scheduler; syscall.RawConn parks the goroutine on Go's network poller
// when the socket is not ready, exactly as net.Conn does, and keeps the
// connection's deadlines. One thing is lost: the race detector, which
// syscall.Read tells about the bytes it writes into a buffer, is not told
// about these; the buffers are TLS's and net/http's own.

// RawIODialer dials like d and returns TCP connections whose reads and
// writes are raw non-blocking system calls, which never wake the Go
// runtime's monitor thread. Set it as the rest.Config's Dial; TLS and
// HTTP/2 run over it unchanged. A connection that is not TCP is returned
// as dialed.
func RawIODialer(d *net.Dialer) func(ctx context.Context, network, address string) (net.Conn, error) {
	return func(ctx context.Context, network, address string) (net.Conn, error) {
		c, err := d.DialContext(ctx, network, address)
		if err != nil {
			return nil, err
		}
		return newRawIOConn(c), nil
	}
}

// rawIOConn is a net.Conn whose Read and Write are raw system calls on
// its socket; every other method is the dialed connection's.
type rawIOConn struct {
	net.Conn
	rc syscall.RawConn
}

func newRawIOConn(c net.Conn) net.Conn {
	tc, ok := c.(*net.TCPConn)
	if !ok {
		return c
	}
	rc, err := tc.SyscallConn()
	if err != nil {
		return c
	}
	return &rawIOConn{Conn: tc, rc: rc}
}

func (c *rawIOConn) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	var n int
	var errno syscall.Errno
	err := c.rc.Read(func(fd uintptr) bool {
		for {
			r, _, e := syscall.RawSyscall(syscall.SYS_READ, fd, uintptr(unsafe.Pointer(&p[0])), uintptr(len(p)))
			switch e {
			case syscall.EINTR:
				continue
			case syscall.EAGAIN:
				return false // wait on the poller, then call again
			}
			n, errno = int(r), e
			return true
		}
	})
	switch {
	case err != nil:
		return 0, c.opError("read", err)
	case errno != 0:
		return 0, c.opError("read", os.NewSyscallError("read", errno))
	case n == 0:
		return 0, io.EOF
	}
	return n, nil
}

func (c *rawIOConn) Write(p []byte) (int, error) {
	off := 0
	var errno syscall.Errno
	err := c.rc.Write(func(fd uintptr) bool {
		for off < len(p) {
			r, _, e := syscall.RawSyscall(syscall.SYS_WRITE, fd, uintptr(unsafe.Pointer(&p[off])), uintptr(len(p)-off))
			switch e {
			case 0:
				off += int(r)
			case syscall.EINTR:
			case syscall.EAGAIN:
				return false // the send buffer is full: wait on the poller
			default:
				errno = e
				return true
			}
		}
		return true
	})
	switch {
	case err != nil:
		return off, c.opError("write", err)
	case errno != 0:
		return off, c.opError("write", os.NewSyscallError("write", errno))
	}
	return off, nil
}

// opError wraps err as net.Conn's own methods do. RawConn's errors (a
// closed connection, a deadline) are already *net.OpError, named
// "raw-read" or "raw-write".
func (c *rawIOConn) opError(op string, err error) error {
	if oe, ok := err.(*net.OpError); ok {
		e := *oe
		e.Op = op
		return &e
	}
	return &net.OpError{Op: op, Net: "tcp", Source: c.LocalAddr(), Addr: c.RemoteAddr(), Err: err}
}
