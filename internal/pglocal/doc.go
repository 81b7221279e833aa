// Package pglocal runs a private PostgreSQL cluster from the server binaries
// installed on the machine (initdb, pg_ctl, postgres).
//
// It is meant for development and tests: the cluster trusts every local
// connection, listens on 127.0.0.1 only and creates no Unix-domain sockets.
// When the calling process runs as root, every PostgreSQL binary is run as
// the unprivileged "postgres" OS user, because PostgreSQL refuses to run as
// root.
package pglocal
