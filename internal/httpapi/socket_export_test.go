package httpapi

import "time"

// SetSocketTimings shortens the job socket's ping interval, credential
// check interval and write timeout for a test (zero keeps the default).
// Call it before the sockets it should govern open.
func (s *Server) SetSocketTimings(ping, check, write time.Duration) {
	s.sockets.ping.Store(int64(ping))
	s.sockets.check.Store(int64(check))
	s.sockets.write.Store(int64(write))
}
