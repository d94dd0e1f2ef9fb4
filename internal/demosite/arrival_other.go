//go:build !linux

package demosite

import (
	"context"
	"net"
	"time"
)

// ArrivalListener returns l: kernel receive times are read on Linux only.
func ArrivalListener(l net.Listener) net.Listener { return l }

// ArrivalContext returns ctx.
func ArrivalContext(ctx context.Context, _ net.Conn) context.Context { return ctx }

func arrivalTime(context.Context) (time.Time, bool) { return time.Time{}, false }
