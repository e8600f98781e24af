package httpapi

import (
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"slices"

	"studio/internal/asset"
	"studio/internal/errs"
)

// formSpec is what one multipart route reads. Every multipart route reads
// its form with readForm, so each is bounded the same way: the whole body,
// each file, each text value, how many parts a file field may carry and
// how many files in all. A form that breaks a bound is refused as soon as
// the part that breaks it is met, before the handler (and so before
// anything is stored). The image bytes are sniffed where they are used
// (asset.Inspect), not here.
type formSpec struct {
	maxBody  int64          // the whole body
	tooLarge error          // what a body over maxBody answers; nil: IMAGE_TOO_LARGE
	files    map[string]int // file fields, each with the most parts it may carry
	named    bool           // a part named in files is a file even without a filename
	refs     bool           // a part named in files without a filename is a reference (text: an asset id), counted with the field's files
	others   bool           // file parts under other names are kept, one part each
	maxFiles int            // file parts in all
	texts    []string       // the text fields kept; nil keeps every one
	maxText  int            // the longest text value, in bytes
}

// form is a multipart body as read.
type form struct {
	files  []formFile
	refs   []formRef         // text parts in file fields (formSpec.refs), in order
	values map[string]string // text fields, each given at most once and free of control characters
}

type formFile struct {
	field, filename string
	data            []byte
}

type formRef struct{ field, value string }

func (f form) has(field string) bool { _, ok := f.values[field]; return ok }

// readForm reads r's multipart body by the spec. A body over the bound is
// 413 IMAGE_TOO_LARGE (before a byte is read when Content-Length says so),
// a file over 12 MB the same; everything else that is wrong with the form
// is 400 BAD_FORM: not multipart, a part without a name, a text field given
// twice, too long or holding a control character, a file field given more
// parts than it takes (a single-input role sent twice, files and references
// counted together), too many files.
func readForm(w http.ResponseWriter, r *http.Request, spec formSpec) (form, error) {
	f := form{values: map[string]string{}}
	if r.ContentLength > spec.maxBody {
		return f, spec.bodyTooLarge() // before a byte is read
	}
	if ct, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || ct != "multipart/form-data" {
		return f, errs.Msg(errs.BadForm, "The body must be a multipart/form-data form.")
	}
	r.Body = http.MaxBytesReader(w, r.Body, spec.maxBody)
	mr, err := r.MultipartReader()
	if err != nil {
		return f, errs.Msg(errs.BadForm, "The body must be a multipart/form-data form.")
	}
	count := map[string]int{}
	for {
		part, err := mr.NextPart()
		if err == io.EOF {
			return f, nil
		}
		if err != nil {
			return f, spec.formError(err)
		}
		name := part.FormName()
		if name == "" {
			return f, errs.Msg(errs.BadForm, "Every part of the form needs a name.")
		}
		most, declared := spec.files[name]
		if part.FileName() != "" || (declared && spec.named) {
			if !declared {
				if !spec.others {
					if err := spec.discard(part); err != nil {
						return f, err
					}
					continue
				}
				most = 1
			}
			count[name]++
			if count[name] > most {
				if most == 1 {
					return f, errs.Msg(errs.BadForm, fmt.Sprintf("The field %s takes one file; send it once.", name))
				}
				return f, errs.Msg(errs.BadForm, fmt.Sprintf("The field %s takes at most %d files.", name, most))
			}
			if !cleanText(part.FileName()) {
				return f, errs.Msg(errs.BadForm, "The file name of "+name+" must be text without control characters.")
			}
			if len(f.files) == spec.maxFiles {
				return f, errs.Msg(errs.BadForm, fmt.Sprintf("A form takes at most %d files.", spec.maxFiles))
			}
			data, err := io.ReadAll(io.LimitReader(part, asset.MaxBytes+1))
			if err != nil {
				return f, spec.formError(err)
			}
			if len(data) > asset.MaxBytes {
				return f, asset.ErrTooLarge
			}
			f.files = append(f.files, formFile{field: name, filename: part.FileName(), data: data})
			continue
		}
		if declared && spec.refs {
			count[name]++
			if count[name] > most {
				return f, errs.Msg(errs.BadForm, fmt.Sprintf("The field %s takes at most %d input(s), files and asset ids together.", name, most))
			}
			b, err := io.ReadAll(io.LimitReader(part, int64(spec.maxText)+1))
			if err != nil {
				return f, spec.formError(err)
			}
			if len(b) > spec.maxText || !cleanText(string(b)) {
				return f, errs.Msg(errs.BadForm, "The field "+name+" must be a file or an asset id.")
			}
			f.refs = append(f.refs, formRef{field: name, value: string(b)})
			continue
		}
		if spec.texts != nil && !slices.Contains(spec.texts, name) {
			if err := spec.discard(part); err != nil {
				return f, err
			}
			continue
		}
		b, err := io.ReadAll(io.LimitReader(part, int64(spec.maxText)+1))
		if err != nil {
			return f, spec.formError(err)
		}
		switch {
		case len(b) > spec.maxText:
			return f, errs.Msg(errs.BadForm, fmt.Sprintf("The field %s is longer than %d bytes.", name, spec.maxText))
		case f.has(name):
			return f, errs.Msg(errs.BadForm, "The field "+name+" is given twice.")
		case !cleanText(string(b)):
			return f, errs.Msg(errs.BadForm, "The field "+name+" must be text without control characters.")
		}
		f.values[name] = string(b)
	}
}

func (spec formSpec) discard(part io.Reader) error {
	if _, err := io.Copy(io.Discard, part); err != nil {
		return spec.formError(err)
	}
	return nil
}

func (spec formSpec) formError(err error) error {
	if _, ok := errors.AsType[*http.MaxBytesError](err); ok {
		return spec.bodyTooLarge()
	}
	return errs.Wrap(errs.BadForm, err)
}

func (spec formSpec) bodyTooLarge() error {
	if spec.tooLarge != nil {
		return spec.tooLarge
	}
	return asset.ErrTooLarge
}
