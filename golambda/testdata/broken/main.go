// Command broken does not compile: the golambda tests check that its build error is reported.
package main

var broken int = "not an int"

func main() {}
