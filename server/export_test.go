package server

// The test harness, for the tests of package server_test.
var (
	ServeInBackground = serveInBackground
	SendHTTP          = sendHTTP
)
