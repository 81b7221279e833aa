// Package config holds the service's settings, read from the environment:
// Load parses every variable once at start (defaults, bounds, a secret
// from a file), a bad value is an error naming the variable in one line,
// and a Config logs with its secrets masked. The README's Configuration
// table lists the variables.
package config
