package intrinsic

import (
	"encoding/binary"
	"fmt"
)

// uuid implements States.UUID(): a version 4 UUID in lowercase, drawn from Env.Rand so that a
// seeded run repeats its UUIDs.
func uuid(inv invocation) (any, error) {
	if inv.env.Rand == nil {
		return nil, ErrNoRandomSource
	}
	var b [16]byte
	binary.BigEndian.PutUint64(b[:8], inv.env.Rand.Uint64())
	binary.BigEndian.PutUint64(b[8:], inv.env.Rand.Uint64())
	b[6] = b[6]&0x0F | 0x40 // version 4
	b[8] = b[8]&0x3F | 0x80 // RFC 9562 variant
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16]), nil
}
