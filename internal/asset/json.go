package asset

import (
	"strconv"

	"studio/internal/jsonstr"
)

// AppendJSON appends a's wire form: byte for byte what encoding/json
// writes for an Asset (TestAppendJSON and FuzzAppendJSON hold it to that),
// without reflection. The library list encodes thousands of assets per
// answer, and reflection was a fifth of its time. A field added to Asset
// must be added here in the same place; the tests fail until it is.
func (a *Asset) AppendJSON(b []byte) []byte {
	b = append(b, `{"id":`...)
	b = jsonstr.Append(b, a.ID)
	b = append(b, `,"name":`...)
	b = jsonstr.Append(b, a.Name)
	b = append(b, `,"sku":`...)
	b = appendStringPtr(b, a.SKU)
	b = append(b, `,"kind":`...)
	b = appendStringPtr(b, (*string)(a.Kind))
	b = append(b, `,"url":`...)
	b = jsonstr.Append(b, a.URL)
	b = append(b, `,"folderId":`...)
	b = appendStringPtr(b, a.FolderID)
	b = append(b, `,"groupId":`...)
	b = appendStringPtr(b, a.GroupID)
	b = append(b, `,"fit":`...)
	b = appendStringPtr(b, (*string)(a.Fit))
	b = append(b, `,"wearer":`...)
	b = appendStringPtr(b, (*string)(a.Wearer))
	b = append(b, `,"fitGuessed":`...)
	b = strconv.AppendBool(b, a.FitGuessed)
	b = append(b, `,"wearerGuessed":`...)
	b = strconv.AppendBool(b, a.WearerGuessed)
	b = append(b, `,"markGuessed":`...)
	b = strconv.AppendBool(b, a.MarkGuessed)
	b = append(b, `,"carriesMark":`...)
	b = strconv.AppendBool(b, a.CarriesMark)
	b = append(b, `,"mime":`...)
	b = jsonstr.Append(b, a.Mime)
	b = append(b, `,"tool":`...)
	b = appendStringPtr(b, a.Tool)
	b = append(b, `,"width":`...)
	b = strconv.AppendInt(b, int64(a.Width), 10)
	b = append(b, `,"height":`...)
	b = strconv.AppendInt(b, int64(a.Height), 10)
	b = append(b, `,"size":`...)
	b = strconv.AppendInt(b, a.Size, 10)
	b = append(b, `,"createdAt":`...)
	b = a.CreatedAt.AppendJSON(b)
	b = append(b, `,"approved":`...)
	b = strconv.AppendBool(b, a.Approved)
	b = append(b, `,"approvedBy":`...)
	b = appendStringPtr(b, a.ApprovedBy)
	b = append(b, `,"approvedAt":`...)
	if a.ApprovedAt == nil {
		b = append(b, "null"...)
	} else {
		b = a.ApprovedAt.AppendJSON(b)
	}
	return append(b, '}')
}

func appendStringPtr(b []byte, s *string) []byte {
	if s == nil {
		return append(b, "null"...)
	}
	return jsonstr.Append(b, *s)
}
