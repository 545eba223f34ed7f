//go:build !unix

package ecp

import "errors"

// startStdio is not available without Unix process groups.
func startStdio([]string, *Options) (transport, error) {
	return nil, errors.New("ecp: ecp+stdio: agents need a Unix system (process groups); use ecp+ws://")
}
