// Package layering holds no code: its test checks, with go list, the
// package layering docs/architecture.md describes (which packages the
// protocol-neutral ones, and the plain-data leaves, may depend on).
package layering
