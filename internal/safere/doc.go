// Package safere compiles the regular expressions tenants write (intent
// rule patterns, flow step checks, guardrail rules, slot patterns) within
// bounds on what one of them may cost, so that no pattern a tenant can
// save makes a message slow or the process large.
//
// Go's regexp (RE2) never backtracks exponentially, but its cost still
// grows with the pattern: matching touches, for every character of the
// input, each program instruction that is alive at that point, and a
// pattern such as `.{0,999}` repeated keeps thousands of them alive (one
// such pattern of 490 bytes took 42 s of CPU on a 4,000-character message,
// and 10 MB of memory compiled). Compile therefore refuses, before
// compiling it for use:
//
//   - a counted repeat over MaxRepeat (`x{0,999}`), or nested counted
//     repeats whose counts multiply past MaxRepeatProduct
//     (`(x{0,20}){0,20}`): they are what makes programs large;
//   - a program of more than MaxInsts instructions (memory);
//   - a program in which reading one input character can cost more than
//     MaxStepCost units of work: the instructions alive at once, weighted
//     by what testing each costs (time: see Cost).
//
// A Regexp that passed runs on the first MaxInputRunes characters of its
// input (Bound), which is every character of a message the contract
// accepts; so one match costs at most MaxInputRunes × MaxStepCost units,
// under a millisecond (see the package's benchmarks and
// docs/performance.md). The guard, which must see a whole generated
// answer, uses Whole instead and pays a cost linear in the answer.
//
// A Budget adds up the footprints of one tenant's patterns of one kind
// against MaxTenantSize and MaxTenantStepCost, so that the tenant's
// compiled patterns stay within a bound of memory, and one message within
// a bound of time, however many rules the other limits allow.
package safere
