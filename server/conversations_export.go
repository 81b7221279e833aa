package server

import (
	"bufio"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/gen/api"
	"github.com/cs-assistant/assistant/pipelines/dialogue/turn"
)

// exportBufferBytes is what the export gathers before writing and flushing
// it to the client: large enough to spare a write per row, small enough
// that memory stays constant.
const exportBufferBytes = 32 << 10

// ExportConversations implements GET /admin/conversations/export. The rows
// are written as the store reads them, never gathered: see exportResponse.
func (h *handlers) ExportConversations(ctx context.Context, r api.ExportConversationsRequestObject) (api.ExportConversationsResponseObject, error) {
	tenant, err := domain.TenantFrom(ctx)
	if err != nil {
		return nil, err
	}
	p := r.Params
	f := conversationFilter(p.From, p.To, p.Channel, p.Transferred, p.TransferReason, p.RuleId, p.FlowId,
		p.MinConfidence, p.MaxConfidence, p.Text)
	if err := f.Validate(); err != nil {
		return nil, err
	}
	format := api.ExportConversationsParamsFormatJsonl
	if p.Format != nil {
		format = *p.Format
	}
	return exportResponse{
		ctx: ctx, log: h.d.Log, format: format,
		fileName: fmt.Sprintf("conversations-%s-%s.%s", tenant, time.Now().UTC().Format("20060102T150405Z"), format),
		run: func(each func(domain.ExportRow) error) error {
			return h.d.Conversations.ExportConversations(ctx, tenant, f, each)
		},
	}, nil
}

// exportResponse streams an export: the store's rows are encoded into a
// small buffer that is written and flushed to the client whenever it
// fills, so memory stays constant whatever the size. The status and
// headers go out with the first row (or at the end of an empty export): an
// error before that is an ordinary problem answer; one after it ends the
// connection without the final chunk, so that the client sees a cut
// export as failed rather than whole.
type exportResponse struct {
	ctx      context.Context
	log      *slog.Logger
	format   api.ExportConversationsParamsFormat
	fileName string
	run      func(each func(domain.ExportRow) error) error
}

// VisitExportConversationsResponse implements api.ExportConversationsResponseObject.
func (e exportResponse) VisitExportConversationsResponse(w http.ResponseWriter) error {
	buf := bufio.NewWriterSize(flushingWriter{w: w}, exportBufferBytes)
	enc := newExportEncoder(e.format, buf)
	started := false
	start := func() error {
		started = true
		contentType := "application/x-ndjson"
		if e.format == api.ExportConversationsParamsFormatCsv {
			contentType = "text/csv; charset=utf-8"
		}
		w.Header().Set("Content-Type", contentType)
		w.Header().Set("Content-Disposition", `attachment; filename="`+e.fileName+`"`)
		w.WriteHeader(http.StatusOK)
		return enc.begin()
	}
	rows := 0
	err := e.run(func(r domain.ExportRow) error {
		if !started {
			if err := start(); err != nil {
				return err
			}
		}
		rows++
		return enc.row(r)
	})
	if err == nil && !started {
		err = start()
	}
	if err == nil {
		err = enc.end()
	}
	if err == nil {
		err = buf.Flush()
	}
	if err != nil && started {
		e.log.WarnContext(e.ctx, "conversation export cut off", "rows", rows, "err", err)
		panic(http.ErrAbortHandler)
	}
	return err
}

// flushingWriter flushes every write through to the client: the export's
// buffer writes only when it fills.
type flushingWriter struct{ w http.ResponseWriter }

func (f flushingWriter) Write(p []byte) (int, error) {
	n, err := f.w.Write(p)
	if err != nil {
		return n, err
	}
	if err := http.NewResponseController(f.w).Flush(); err != nil && !errors.Is(err, http.ErrNotSupported) {
		return n, err
	}
	return n, nil
}

// exportEncoder writes an export's rows in one format.
type exportEncoder interface {
	begin() error
	row(domain.ExportRow) error
	end() error
}

func newExportEncoder(format api.ExportConversationsParamsFormat, w io.Writer) exportEncoder {
	if format == api.ExportConversationsParamsFormatCsv {
		return &csvExport{w: csv.NewWriter(w)}
	}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return &jsonlExport{enc: enc}
}

// jsonlExport writes one api.ConversationExportRow object per line.
type jsonlExport struct{ enc *json.Encoder }

func (j *jsonlExport) begin() error { return nil }
func (j *jsonlExport) end() error   { return nil }

func (j *jsonlExport) row(r domain.ExportRow) error {
	return j.enc.Encode(toAPIExportRow(r)) // Encode ends each object with a newline
}

func toAPIExportRow(r domain.ExportRow) api.ConversationExportRow {
	out := api.ConversationExportRow{
		SessionId: r.SessionID, Channel: r.Channel, MessageId: r.MessageID, CreatedAt: r.CreatedAt,
		Role: api.ConversationExportRowRole(r.Role), Thought: r.Thought,
		ResponseType: enumPtr[api.ConversationExportRowResponseType](r.ResponseType),
		Confidence:   r.Confidence, ShouldTransfer: r.ShouldTransfer, TransferReason: r.TransferReason,
		TransferCode: enumPtr[api.ConversationExportRowTransferCode](turn.TransferCode(r.TransferReason)),
		RuleId:       r.RuleID, FlowId: r.FlowID, FlowStep: int32Ptr(r.FlowStep), TemplateId: r.TemplateID,
		TemplateVersion: int32Ptr(r.TemplateVersion), Sources: convertAll(r.Sources, toAPIExportSource),
		Status: api.ConversationExportRowStatus(r.Status),
	}
	content := r.Content
	if r.Role == domain.RoleUser {
		out.Text = &content
	} else {
		out.Answer = &content
	}
	if r.Latency != nil {
		l := ms(*r.Latency)
		out.LatencyMs = &l
	}
	if r.TraceID != "" {
		out.TraceId = &r.TraceID
	}
	return out
}

func toAPIExportSource(s domain.MessageSource) api.ConversationExportSource {
	out := api.ConversationExportSource{DocumentId: s.DocumentID, DocumentName: s.DocumentName, ChunkId: s.ChunkID, Score: s.Score}
	if s.Page != nil {
		p := int32(*s.Page)
		out.Page = &p
	}
	return out
}

// csvExportHeader names the columns of a CSV export (the JSON fields in
// snake_case).
func csvExportHeader() []string {
	return []string{"session_id", "channel", "message_id", "created_at", "role", "text", "answer", "thought",
		"response_type", "confidence", "should_transfer", "transfer_reason", "transfer_code", "rule_id", "flow_id",
		"flow_step", "template_id", "template_version", "sources", "latency_ms", "trace_id", "status"}
}

// csvExport writes RFC 4180 CSV; a null is an empty cell, and text a
// spreadsheet would take for a formula is quoted with a leading '.
type csvExport struct {
	w      *csv.Writer
	record []string
}

func (c *csvExport) begin() error {
	c.record = make([]string, len(csvExportHeader()))
	return c.w.Write(csvExportHeader())
}

func (c *csvExport) end() error {
	c.w.Flush()
	return c.w.Error()
}

func (c *csvExport) row(r domain.ExportRow) error {
	a := toAPIExportRow(r)
	sources, err := json.Marshal(a.Sources)
	if err != nil {
		return err
	}
	rec := c.record
	rec[0], rec[1], rec[2] = a.SessionId, a.Channel, a.MessageId
	rec[3], rec[4] = a.CreatedAt.UTC().Format(time.RFC3339Nano), string(a.Role)
	rec[5], rec[6], rec[7] = cellText(a.Text), cellText(a.Answer), cellText(a.Thought)
	rec[8], rec[9] = cellOf(a.ResponseType), cellFloat(a.Confidence)
	rec[10], rec[11], rec[12] = strconv.FormatBool(a.ShouldTransfer), cellText(a.TransferReason), cellOf(a.TransferCode)
	rec[13], rec[14], rec[15] = cellOf(a.RuleId), cellOf(a.FlowId), cellInt(a.FlowStep)
	rec[16], rec[17], rec[18] = cellOf(a.TemplateId), cellInt(a.TemplateVersion), string(sources)
	rec[19], rec[20], rec[21] = cellFloat(a.LatencyMs), cellOf(a.TraceId), string(a.Status)
	if err := c.w.Write(rec); err != nil {
		return err
	}
	// csv.Writer buffers on its own; hand each row to the export's buffer
	// so that only that one decides when to write.
	c.w.Flush()
	return c.w.Error()
}

// cellText is free text in a cell, defused for spreadsheets: a cell
// starting with = + - @ tab or carriage return would run as a formula
// (OWASP "CSV injection"), so it gets a leading '.
func cellText(s *string) string {
	if s == nil {
		return ""
	}
	if *s != "" && strings.ContainsRune("=+-@\t\r", rune((*s)[0])) {
		return "'" + *s
	}
	return *s
}

func cellOf[T ~string](s *T) string {
	if s == nil {
		return ""
	}
	return string(*s)
}

func cellFloat(f *float64) string {
	if f == nil {
		return ""
	}
	return strconv.FormatFloat(*f, 'f', -1, 64)
}

func cellInt(i *int32) string {
	if i == nil {
		return ""
	}
	return strconv.FormatInt(int64(*i), 10)
}
