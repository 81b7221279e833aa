// Package prompt renders prompt templates and serves the published one of
// each scene.
//
// A template version's system_instruction holds {{name}} placeholders
// (spaces inside the braces allowed), each naming a variable the version
// declares. Render fills them in one pass: a builtin variable from the
// values the service injects (Builtin.Map), a custom one from the values
// given with the request; either falls back to the variable's default.
// Empty strings count as unfilled. Filled text is inserted as it is: a
// value that itself contains "{{x}}" is not expanded again, so customer
// text can never pull other variables into the prompt.
//
// A required variable that nothing fills makes Render fail with
// CodeValidation naming each one: the admin preview answers 400 with it,
// and the message pipeline falls back to its built-in instruction and
// records the render with Fallback set.
package prompt
