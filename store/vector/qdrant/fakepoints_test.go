package qdrant

import (
	"context"
	"encoding/hex"
	"regexp"
	"slices"
	"strings"
	"time"

	qc "github.com/qdrant/go-client/qdrant"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/store/vector/memindex"
)

// fakePoints is the fake's Points service.
type fakePoints struct {
	qc.UnimplementedPointsServer
	f *fake
}

var uuidRE = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)

// CreateFieldIndex implements qc.PointsServer.
func (s *fakePoints) CreateFieldIndex(_ context.Context, req *qc.CreateFieldIndexCollection) (*qc.PointsOperationResponse, error) {
	f := s.f
	f.mu.Lock()
	defer f.mu.Unlock()
	f.indexes = append(f.indexes, clone(req))
	c, err := f.collection(req.GetCollectionName())
	if err != nil {
		return nil, err
	}
	if !req.GetWait() {
		return nil, f.violate("create index %s: wait is not set", req.GetFieldName())
	}
	if req.FieldType == nil {
		return nil, f.violate("create index %s: no field type", req.GetFieldName())
	}
	types := map[qc.FieldType]qc.PayloadSchemaType{
		qc.FieldType_FieldTypeKeyword:  qc.PayloadSchemaType_Keyword,
		qc.FieldType_FieldTypeFloat:    qc.PayloadSchemaType_Float,
		qc.FieldType_FieldTypeBool:     qc.PayloadSchemaType_Bool,
		qc.FieldType_FieldTypeDatetime: qc.PayloadSchemaType_Datetime,
	}
	st, known := types[req.GetFieldType()]
	if !known {
		return nil, f.violate("create index %s: unexpected type %v", req.GetFieldName(), req.GetFieldType())
	}
	if strings.ContainsAny(req.GetFieldName(), ".[]\"") {
		return nil, f.violate("create index %q: a key Qdrant reads as a path", req.GetFieldName())
	}
	info := &qc.PayloadSchemaInfo{DataType: st}
	if req.FieldIndexParams != nil {
		info.Params = clone(req.FieldIndexParams)
	}
	c.schema[req.GetFieldName()] = info
	return ok(), nil
}

// Upsert implements qc.PointsServer: it checks each point and stores it.
func (s *fakePoints) Upsert(_ context.Context, req *qc.UpsertPoints) (*qc.PointsOperationResponse, error) {
	f := s.f
	f.mu.Lock()
	defer f.mu.Unlock()
	f.upserts = append(f.upserts, len(req.GetPoints()))
	c, err := f.collection(req.GetCollectionName())
	if err != nil {
		return nil, err
	}
	if !req.GetWait() {
		return nil, f.violate("upsert: wait is not set")
	}
	if len(req.GetPoints()) == 0 {
		return nil, f.violate("upsert: no points")
	}
	for _, p := range req.GetPoints() {
		pt, err := f.readPoint(c, p)
		if err != nil {
			return nil, err
		}
		if old := c.points[pt.id]; old != nil && old.rec.TenantID != pt.rec.TenantID {
			c.stale = true // memindex cannot move a chunk between tenants
		}
		c.points[pt.id] = pt
		if !c.stale {
			if err := c.idx.Upsert(pt.rec.TenantID, []domain.VectorRecord{pt.rec}); err != nil {
				return nil, f.violate("upsert: memindex refuses point %s: %v", pt.id, err)
			}
		}
	}
	return ok(), nil
}

// readPoint checks a point and converts it back to a VectorRecord.
func (f *fake) readPoint(c *fakeCollection, p *qc.PointStruct) (*fakePoint, error) {
	id := p.GetId().GetUuid()
	if !uuidRE.MatchString(id) {
		return nil, f.violate("upsert: point id %v is not a lower-case UUID", p.GetId())
	}
	v := p.GetVectors().GetVector()
	data := v.GetData() //nolint:staticcheck // the field the adapter sends
	if d := v.GetDense(); d != nil {
		data = d.GetData()
	}
	if uint64(len(data)) != c.params.GetSize() {
		return nil, f.violate("upsert: point %s has %d dimensions, want %d", id, len(data), c.params.GetSize())
	}
	pl := p.GetPayload()
	str := func(key string) (string, bool) {
		v, ok := pl[key]
		_, isStr := v.GetKind().(*qc.Value_StringValue)
		return v.GetStringValue(), ok && isStr
	}
	rec := domain.VectorRecord{Vector: slices.Clone(data), Metadata: map[string]any{}}
	var tenant string
	var okT, okC, okM, okK, okD bool
	tenant, okT = str(keyTenant)
	rec.ChunkID, okC = str(keyChunk)
	rec.Model, okM = str(keyModel)
	rec.KBID, okK = str(keyKB)
	rec.DocumentID, okD = str(keyDocument)
	if !okT || tenant == "" || !okC || rec.ChunkID == "" || !okM || rec.Model == "" || !okK || !okD {
		return nil, f.violate("upsert: point %s lacks tenant_id, chunk_id, model, kb_id or document_id: %v", id, pl)
	}
	rec.TenantID = domain.TenantID(tenant)
	if PointID(rec.ChunkID) != id {
		return nil, f.violate("upsert: point id %s is not the id of chunk %s", id, rec.ChunkID)
	}
	for k, v := range pl {
		field, isMeta := metaField(k)
		if !isMeta {
			switch k {
			case keyTenant, keyChunk, keyModel, keyKB, keyDocument:
			case keyCreatedAt:
				t, err := time.Parse(time.RFC3339Nano, v.GetStringValue())
				if err != nil {
					return nil, f.violate("upsert: point %s: created_at %v is not RFC 3339", id, v)
				}
				rec.CreatedAt = t
			default:
				return nil, f.violate("upsert: point %s: unexpected payload key %q", id, k)
			}
			continue
		}
		mv, err := f.metaFromValue(id, k, v)
		if err != nil {
			return nil, err
		}
		rec.Metadata[field] = mv
	}
	return &fakePoint{id: id, rec: rec, payload: pl}, nil
}

// metaField decodes a metadata payload key.
func metaField(k string) (string, bool) {
	if rest, ok := strings.CutPrefix(k, "m_"); ok {
		return rest, true
	}
	if rest, ok := strings.CutPrefix(k, "mx_"); ok {
		b, err := hex.DecodeString(rest)
		return string(b), err == nil
	}
	return "", false
}

// metaFromValue converts a metadata payload value back: strings that are
// dates become times (what they were written from).
func (f *fake) metaFromValue(id, key string, v *qc.Value) (any, error) {
	switch k := v.GetKind().(type) {
	case *qc.Value_StringValue:
		if t, err := time.Parse(time.RFC3339Nano, k.StringValue); err == nil {
			return t, nil
		}
		return k.StringValue, nil
	case *qc.Value_DoubleValue:
		return k.DoubleValue, nil
	case *qc.Value_BoolValue:
		return k.BoolValue, nil
	case *qc.Value_ListValue:
		out := []string{}
		for _, e := range k.ListValue.GetValues() {
			s, isStr := e.GetKind().(*qc.Value_StringValue)
			if !isStr {
				return nil, f.violate("upsert: point %s: %s holds a non-string array element %v", id, key, e)
			}
			out = append(out, s.StringValue)
		}
		return out, nil
	}
	return nil, f.violate("upsert: point %s: %s has unexpected value %v", id, key, v)
}

// Delete implements qc.PointsServer: only deletes by a filter naming the
// tenant and a document or knowledge base are expected.
func (s *fakePoints) Delete(_ context.Context, req *qc.DeletePoints) (*qc.PointsOperationResponse, error) {
	f := s.f
	f.mu.Lock()
	defer f.mu.Unlock()
	f.deletes = append(f.deletes, clone(req))
	c, err := f.collection(req.GetCollectionName())
	if err != nil {
		return nil, err
	}
	if !req.GetWait() {
		return nil, f.violate("delete: wait is not set")
	}
	flt := req.GetPoints().GetFilter()
	if flt == nil {
		return nil, f.violate("delete: not by filter: %v", req.GetPoints())
	}
	tenant, okT := topKeyword(flt, keyTenant)
	doc, okD := topKeyword(flt, keyDocument)
	kb, okK := topKeyword(flt, keyKB)
	if !okT || tenant == "" || okD == okK {
		return nil, f.violate("delete: filter must hold tenant_id and one of document_id / kb_id: %v", flt)
	}
	removed := 0
	for id, p := range c.points {
		if f.eval(flt, p.payload) {
			delete(c.points, id)
			removed++
		}
	}
	if !c.stale {
		var n int
		if okD {
			n = c.idx.DeleteDocument(domain.TenantID(tenant), doc)
		} else {
			n = c.idx.DeleteKnowledgeBase(domain.TenantID(tenant), kb)
		}
		if n != removed {
			return nil, f.violate("delete: the filter removed %d points, memindex %d", removed, n)
		}
	}
	return ok(), nil
}

// Query implements qc.PointsServer: memindex scores the tenant's points of
// the model, and the Qdrant filter, evaluated on the payloads, picks.
func (s *fakePoints) Query(ctx context.Context, req *qc.QueryPoints) (*qc.QueryResponse, error) {
	f := s.f
	f.mu.Lock()
	defer f.mu.Unlock()
	f.queries = append(f.queries, clone(req))
	c, err := f.collection(req.GetCollectionName())
	if err != nil {
		return nil, err
	}
	dense := req.GetQuery().GetNearest().GetDense()
	if dense == nil || uint64(len(dense.GetData())) != c.params.GetSize() {
		return nil, f.violate("query: want a nearest query with a %d-dimension dense vector, got %v", c.params.GetSize(), req.GetQuery())
	}
	flt := req.GetFilter()
	tenant, okT := topKeyword(flt, keyTenant)
	model, okM := topKeyword(flt, keyModel)
	if !okT || tenant == "" || !okM || model == "" {
		return nil, f.violate("query: filter lacks top-level tenant_id and model conditions: %v", flt)
	}
	if req.Limit == nil || req.GetLimit() == 0 || req.GetLimit() > MaxTopK {
		return nil, f.violate("query: limit %v", req.Limit)
	}
	if req.ScoreThreshold == nil {
		return nil, f.violate("query: no score threshold")
	}
	include := req.GetWithPayload().GetInclude().GetFields()
	if len(include) == 0 {
		return nil, f.violate("query: want a payload include selector, got %v", req.GetWithPayload())
	}
	if c.stale {
		c.rebuild()
	}
	hits, err := c.idx.Search(ctx, domain.TenantID(tenant), domain.VectorQuery{
		Vector: dense.GetData(), Model: model, TopK: memindex.MaxTopK, MinScore: req.GetScoreThreshold(),
	})
	if err != nil {
		return nil, f.violate("query: memindex: %v", err)
	}
	byChunk := map[string]*fakePoint{}
	for _, p := range c.points {
		if string(p.rec.TenantID) == tenant {
			byChunk[p.rec.ChunkID] = p
		}
	}
	resp := &qc.QueryResponse{}
	for _, h := range hits {
		p := byChunk[h.ChunkID]
		if p == nil || !f.eval(flt, p.payload) {
			continue
		}
		payload := map[string]*qc.Value{}
		for _, k := range include {
			if v, has := p.payload[k]; has {
				payload[k] = v
			}
		}
		resp.Result = append(resp.Result, &qc.ScoredPoint{Id: qc.NewID(p.id), Payload: payload, Score: h.Score})
		if uint64(len(resp.Result)) == req.GetLimit() {
			break
		}
	}
	return resp, nil
}

// rebuild refills the memindex from the points.
func (c *fakeCollection) rebuild() {
	c.idx = memindex.NewWithOptions(int(c.params.GetSize()), memindex.Options{Quantization: memindex.QuantizeNone})
	for _, p := range c.points {
		_ = c.idx.Upsert(p.rec.TenantID, []domain.VectorRecord{p.rec})
	}
	c.stale = false
}

// topKeyword returns the keyword of a top-level must match on key.
func topKeyword(f *qc.Filter, key string) (string, bool) {
	for _, c := range f.GetMust() {
		fc := c.GetField()
		if fc.GetKey() != key {
			continue
		}
		if kw, isKW := fc.GetMatch().GetMatchValue().(*qc.Match_Keyword); isKW {
			return kw.Keyword, true
		}
	}
	return "", false
}
