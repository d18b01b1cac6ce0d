package intrinsic

import (
	"crypto/md5"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/hex"
	"hash"
)

// hashAlgorithms are the algorithm names States.Hash accepts, spelled exactly so.
var hashAlgorithms = map[string]func() hash.Hash{
	"MD5":     md5.New,
	"SHA-1":   sha1.New,
	"SHA-256": sha256.New,
	"SHA-384": sha512.New384,
	"SHA-512": sha512.New,
}

// hashData implements States.Hash(data, algorithm): the lowercase hexadecimal digest of the
// data's UTF-8 bytes. Data that is not a string is hashed as its JSON text, as AWS does.
func hashData(inv invocation) (any, error) {
	data, ok := inv.args[0].(string)
	if !ok {
		data = string(appendJSON(nil, inv.args[0]))
	}
	algorithm, _ := inv.args[1].(string)
	newHash, known := hashAlgorithms[algorithm]
	if !known || javaLength(data) > maxCodecInput {
		return nil, ErrInvalidArguments
	}
	h := newHash()
	h.Write([]byte(data))
	return hex.EncodeToString(h.Sum(nil)), nil
}
