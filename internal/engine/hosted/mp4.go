package hosted

import "encoding/binary"

// MP4Size reads a video's display size from its first track header box with
// a non-zero size (moov > trak > tkhd, ISO/IEC 14496-12), or 0, 0.
func MP4Size(data []byte) (int, int) {
	var walk func(b []byte, path string) (int, int)
	walk = func(b []byte, path string) (int, int) {
		for len(b) >= 8 {
			size := int(binary.BigEndian.Uint32(b))
			kind := string(b[4:8])
			head := 8
			if size == 1 && len(b) >= 16 {
				size, head = int(binary.BigEndian.Uint64(b[8:16])), 16
			} else if size == 0 {
				size = len(b)
			}
			if size < head || size > len(b) {
				return 0, 0
			}
			body := b[head:size]
			switch {
			case kind == "moov" || kind == "trak":
				if w, h := walk(body, path+"/"+kind); w > 0 && h > 0 {
					return w, h
				}
			case kind == "tkhd" && path == "/moov/trak":
				// version 0: 4 flags+version, 20 bytes of times and ids, ... width and
				// height are the last 8 bytes, 16.16 fixed point.
				if len(body) >= 84 {
					w := int(binary.BigEndian.Uint32(body[len(body)-8:]) >> 16)
					h := int(binary.BigEndian.Uint32(body[len(body)-4:]) >> 16)
					if w > 0 && h > 0 {
						return w, h
					}
				}
			}
			b = b[size:]
		}
		return 0, 0
	}
	return walk(data, "")
}
