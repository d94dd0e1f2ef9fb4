//go:build !unix

package cthrottle

func ignoreSIGPIPE() {}
