package handlers_test

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/zimmerhq/zimmer/handlers"
)

// A slowloris client — headers sent a byte at a time, never finished — loses its connection
// once ReadHeaderTimeout passes, while a prompt client on the same server is answered.
func TestSlowlorisClientIsCutOff(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := handlers.NewServer(ln.Addr().String(), http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = io.WriteString(w, "ok")
	}))
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })

	conn, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	start := time.Now()
	stop := make(chan struct{})
	defer close(stop)
	go func() { // trickle an endless header, one byte every 100 ms
		header := []byte("GET /up HTTP/1.1\r\nHost: zimmer\r\nX-Slow: ")
		for i := 0; ; i++ {
			b := byte('a')
			if i < len(header) {
				b = header[i]
			}
			select {
			case <-stop:
				return
			case <-time.After(100 * time.Millisecond):
			}
			if _, err := conn.Write([]byte{b}); err != nil {
				return
			}
		}
	}()

	resp, err := http.Get("http://" + ln.Addr().String() + "/up")
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("a prompt client is answered meanwhile: %v %v", resp, err)
	}
	resp.Body.Close()

	_ = conn.SetReadDeadline(time.Now().Add(handlers.ReadHeaderTimeout + 5*time.Second))
	_, err = bufio.NewReader(conn).ReadString('\n')
	elapsed := time.Since(start)
	if ne, ok := err.(net.Error); ok && ne.Timeout() {
		t.Fatalf("the trickling client still held its connection after %s", elapsed)
	}
	if elapsed < handlers.ReadHeaderTimeout-time.Second || elapsed > handlers.ReadHeaderTimeout+2*time.Second {
		t.Fatalf("cut off after %s, want about %s (err %v)", elapsed, handlers.ReadHeaderTimeout, err)
	}
}
