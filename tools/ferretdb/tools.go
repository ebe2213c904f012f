//go:build tools

// This module also pins nats-server (the event store of `npm start` and the tests), so that
// scripts/bootstrap.sh builds both programs in one `go build`: they share the standard library
// and the dependencies they have in common (golang.org/x/sys, x/crypto, klauspost/compress), which
// two separate builds would each compile. The build tag keeps it out of the launcher itself.
package main

import _ "github.com/nats-io/nats-server/v2"
