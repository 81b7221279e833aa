// Package pgtest gives Go tests throwaway PostgreSQL databases.
//
// Each test binary starts its own private cluster (see package pglocal) in
// a fresh temporary directory on a free port, so packages tested in
// parallel never collide. The schema is applied once, to a template
// database, and every test gets a copy of it:
//
//	func TestMain(m *testing.M) { os.Exit(pgtest.Main(m, migrate)) }
//
//	func TestSomething(t *testing.T) {
//		t.Parallel()
//		url := pgtest.NewDatabase(t) // fresh database, dropped after the test
//		...
//	}
//
// Set-up failures (for example no PostgreSQL binaries) make the test binary
// fail rather than skip, so CI cannot pass without running database tests.
package pgtest
