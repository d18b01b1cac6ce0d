// Command hello is the smallest main package: the golambda tests bundle it.
package main

func main() {}
