package controller

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/client-go/rest"
)

// rawPair dials a loopback listener with RawIODialer and returns the raw
// client side and the plain server side.
func rawPair(t *testing.T) (client, server net.Conn) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { ln.Close() })
	accepted := make(chan net.Conn, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			close(accepted)
			return
		}
		accepted <- c
	}()
	client, err = RawIODialer(&net.Dialer{Timeout: 5 * time.Second})(context.Background(), "tcp", ln.Addr().String())
	require.NoError(t, err)
	require.IsType(t, &rawIOConn{}, client, "a TCP connection is wrapped")
	server = <-accepted
	require.NotNil(t, server)
	t.Cleanup(func() { client.Close(); server.Close() })
	return client, server
}

// Bytes cross both ways intact, in amounts far beyond a socket's buffers,
// so writes are partial and both sides wait on the poller (EAGAIN), with
// reads and writes on the one connection at once, as TLS and HTTP/2 do.
func TestRawIOConnCopiesBothWays(t *testing.T) {
	client, server := rawPair(t)
	up := make([]byte, 8<<20)
	down := make([]byte, 8<<20)
	_, _ = rand.Read(up)
	_, _ = rand.Read(down)

	var wg sync.WaitGroup
	var gotUp, gotDown []byte
	var errUp, errDown, errServerWrite, errClientWrite error
	wg.Add(4)
	go func() { defer wg.Done(); gotUp, errUp = io.ReadAll(io.LimitReader(server, int64(len(up)))) }()
	go func() { defer wg.Done(); gotDown, errDown = io.ReadAll(client) }() // until the server closes
	go func() {
		defer wg.Done()
		// Small writes too: every Write call is one syscall loop.
		for i := 0; i < len(up); {
			n := min(len(up)-i, 1+i%70000)
			var w int
			w, errClientWrite = client.Write(up[i : i+n])
			if errClientWrite != nil || w != n {
				return
			}
			i += n
		}
	}()
	go func() {
		defer wg.Done()
		_, errServerWrite = server.Write(down)
		server.(*net.TCPConn).CloseWrite()
	}()
	wg.Wait()
	require.NoError(t, errClientWrite)
	require.NoError(t, errServerWrite)
	require.NoError(t, errUp)
	require.NoError(t, errDown, "EOF is io.EOF, which ReadAll does not report")
	assert.True(t, bytes.Equal(up, gotUp), "client to server")
	assert.True(t, bytes.Equal(down, gotDown), "server to client")
}

func TestRawIOConnEOFAndEmptyRead(t *testing.T) {
	client, server := rawPair(t)
	n, err := client.Read(nil)
	assert.Equal(t, 0, n)
	assert.NoError(t, err, "a zero-length read does not wait")
	require.NoError(t, server.Close())
	n, err = client.Read(make([]byte, 10))
	assert.Equal(t, 0, n)
	assert.Same(t, io.EOF, err, "io.EOF itself, which callers compare with ==")
}

func TestRawIOConnDeadlines(t *testing.T) {
	client, _ := rawPair(t)
	require.NoError(t, client.SetReadDeadline(time.Now().Add(20*time.Millisecond)))
	_, err := client.Read(make([]byte, 10))
	require.Error(t, err)
	assert.ErrorIs(t, err, os.ErrDeadlineExceeded)
	var ne net.Error
	require.ErrorAs(t, err, &ne)
	assert.True(t, ne.Timeout())
	var oe *net.OpError
	require.ErrorAs(t, err, &oe)
	assert.Equal(t, "read", oe.Op)

	// A write into a peer that never reads fills the buffers, then meets
	// the deadline with what it wrote so far.
	big := make([]byte, 64<<20) // made before the deadline is set: on a busy machine it takes a while
	require.NoError(t, client.SetWriteDeadline(time.Now().Add(200*time.Millisecond)))
	n, err := client.Write(big)
	assert.ErrorIs(t, err, os.ErrDeadlineExceeded)
	assert.Positive(t, n)
	assert.Less(t, n, 64<<20)
	require.ErrorAs(t, err, &oe)
	assert.Equal(t, "write", oe.Op)
}

func TestRawIOConnClosedAndReset(t *testing.T) {
	client, server := rawPair(t)
	require.NoError(t, client.Close())
	_, err := client.Read(make([]byte, 1))
	assert.ErrorIs(t, err, net.ErrClosed)
	_, err = client.Write([]byte("x"))
	assert.ErrorIs(t, err, net.ErrClosed)

	// A peer that resets: the errno comes back as net's own methods give it.
	client, server = rawPair(t)
	require.NoError(t, server.(*net.TCPConn).SetLinger(0))
	_, _ = client.Write([]byte("unread")) // unread data makes the close a reset
	time.Sleep(20 * time.Millisecond)
	require.NoError(t, server.Close())
	time.Sleep(20 * time.Millisecond)
	_, err = client.Read(make([]byte, 10))
	assert.ErrorIs(t, err, syscall.ECONNRESET)
	var se *os.SyscallError
	require.ErrorAs(t, err, &se)
	assert.Equal(t, "read", se.Syscall)
}

// Through client-go: TLS and HTTP/2 (negotiated by ALPN on the raw
// connection) work unchanged, on one connection for every request.
func TestRawIODialerUnderRESTClient(t *testing.T) {
	var mu sync.Mutex
	conns := map[string]bool{}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		conns[r.RemoteAddr] = true
		mu.Unlock()
		_, _ = io.Copy(io.Discard, r.Body)
		_, _ = w.Write(bytes.Repeat([]byte("v"), 100000))
	}))
	srv.EnableHTTP2 = true
	// Connections dialed for the first requests and dropped once HTTP/2
	// carries them all end in handshake errors the server would log.
	srv.Config.ErrorLog = log.New(io.Discard, "", 0)
	srv.StartTLS()
	defer srv.Close()

	cfg := &rest.Config{Host: srv.URL, TLSClientConfig: rest.TLSClientConfig{Insecure: true}}
	cfg.Dial = RawIODialer(&net.Dialer{Timeout: 5 * time.Second})
	client, err := rest.HTTPClientFor(cfg)
	require.NoError(t, err)
	var wg sync.WaitGroup
	for i := 0; i < 20; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			resp, err := client.Post(srv.URL+"/x", "text/plain", bytes.NewReader(make([]byte, 50000)))
			if !assert.NoError(t, err) {
				return
			}
			defer resp.Body.Close()
			body, err := io.ReadAll(resp.Body)
			assert.NoError(t, err)
			assert.Equal(t, "HTTP/2.0", resp.Proto)
			assert.Len(t, body, 100000)
		}()
	}
	wg.Wait()
	mu.Lock()
	defer mu.Unlock()
	assert.Len(t, conns, 1, "HTTP/2 multiplexes every request on one connection")
}

func TestRawIODialerKeepsOtherConns(t *testing.T) {
	c1, c2 := net.Pipe()
	defer c1.Close()
	defer c2.Close()
	assert.Same(t, c1, newRawIOConn(c1), "not TCP: returned as dialed")
	_, err := RawIODialer(&net.Dialer{Timeout: time.Second})(context.Background(), "tcp", "127.0.0.1:1")
	assert.True(t, errors.Is(err, syscall.ECONNREFUSED), "a dial error is the dialer's: %v", err)
}
