package handlers

import (
	"net/http"
	"time"
)

// Connection limits of every Zimmer HTTP server: a client that trickles its headers or body,
// or stops reading the answer, gives its connection up instead of holding it (and a goroutine)
// open. The largest body a route accepts is 4 MiB (REST and MCP), which ReadTimeout lets
// through at under 100 KB/s; a route that writes more than WriteTimeout allows extends its own
// deadline (the transcript does) rather than the server going without one.
const (
	ReadHeaderTimeout = 5 * time.Second
	ReadTimeout       = 60 * time.Second
	WriteTimeout      = 60 * time.Second
	IdleTimeout       = 120 * time.Second
)

// NewServer is an http.Server for h on addr with the connection limits above: `zimmer serve`
// and the worker's metrics server both run on one.
func NewServer(addr string, h http.Handler) *http.Server {
	return &http.Server{Addr: addr, Handler: h, ReadHeaderTimeout: ReadHeaderTimeout, ReadTimeout: ReadTimeout,
		WriteTimeout: WriteTimeout, IdleTimeout: IdleTimeout}
}
