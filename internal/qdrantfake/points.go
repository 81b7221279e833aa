package qdrantfake

import (
	"context"
	"encoding/hex"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	qc "github.com/qdrant/go-client/qdrant"

	"github.com/cs-assistant/assistant/domain"
)

// pointsService is the fake's Points service.
type pointsService struct {
	qc.UnimplementedPointsServer
	f *Server
}

var uuidRE = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)

// CreateFieldIndex implements qc.PointsServer.
func (s *pointsService) CreateFieldIndex(_ context.Context, req *qc.CreateFieldIndexCollection) (*qc.PointsOperationResponse, error) {
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

// Upsert implements qc.PointsServer: it checks each point and stores it
// in the shard its tenant's request is routed to.
func (s *pointsService) Upsert(_ context.Context, req *qc.UpsertPoints) (*qc.PointsOperationResponse, error) {
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
	shards, err := f.route(c, req.GetShardKeySelector(), "upsert")
	if err != nil {
		return nil, err
	}
	if len(shards) != 1 {
		return nil, f.violate("upsert: routed to %d shards, want one", len(shards))
	}
	for _, p := range req.GetPoints() {
		pt, err := f.readPoint(c, p)
		if err != nil {
			return nil, err
		}
		if sel := req.GetShardKeySelector(); sel != nil && sel.GetShardKeys()[0].GetKeyword() != string(pt.rec.TenantID) {
			return nil, f.violate("upsert: point of tenant %s routed by the shard key of %v", pt.rec.TenantID, sel.GetShardKeys())
		}
		if err := shards[0].put(pt); err != nil {
			return nil, f.violate("upsert: %v", err)
		}
	}
	return ok(), nil
}

// put stores p, replacing the point of its id.
func (sh *shard) put(p *point) error {
	if old := sh.points[p.id]; old != nil && old.rec.TenantID != p.rec.TenantID {
		sh.stale = true // memindex cannot move a chunk between tenants
	}
	sh.points[p.id] = p
	if !sh.stale {
		if err := sh.idx.Upsert(p.rec.TenantID, []domain.VectorRecord{p.rec}); err != nil {
			return fmt.Errorf("memindex refuses point %s: %w", p.id, err)
		}
	}
	return nil
}

// readPoint checks a point and converts it back to a VectorRecord with its
// sparse vector.
func (f *Server) readPoint(c *collection, p *qc.PointStruct) (*point, error) {
	id := p.GetId().GetUuid()
	if !uuidRE.MatchString(id) {
		return nil, f.violate("upsert: point id %v is not a lower-case UUID", p.GetId())
	}
	dense, sparse, err := f.vectors(c, id, p.GetVectors())
	if err != nil {
		return nil, err
	}
	pl := p.GetPayload()
	str := func(key string) (string, bool) {
		v, ok := pl[key]
		_, isStr := v.GetKind().(*qc.Value_StringValue)
		return v.GetStringValue(), ok && isStr
	}
	rec := domain.VectorRecord{Vector: dense, Metadata: map[string]any{}}
	var tenant string
	var okT, okC, okM, okK, okD bool
	tenant, okT = str(KeyTenant)
	rec.ChunkID, okC = str(KeyChunk)
	rec.Model, okM = str(KeyModel)
	rec.KBID, okK = str(KeyKB)
	rec.DocumentID, okD = str(KeyDocument)
	if !okT || tenant == "" || !okC || rec.ChunkID == "" || !okM || rec.Model == "" || !okK || !okD {
		return nil, f.violate("upsert: point %s lacks tenant_id, chunk_id, model, kb_id or document_id: %v", id, pl)
	}
	rec.TenantID = domain.TenantID(tenant)
	for _, sh := range c.shards {
		for _, other := range sh.points {
			if other.rec.ChunkID == rec.ChunkID && other.id != id {
				return nil, f.violate("upsert: chunk %s has point %s already, now %s: re-upserting would duplicate it", rec.ChunkID, other.id, id)
			}
		}
	}
	if _, has := pl[KeyTerms]; has != (sparse != nil) {
		return nil, f.violate("upsert: point %s: terms and the sparse vector come together or not at all", id)
	}
	for k, v := range pl {
		field, isMeta := metaField(k)
		if !isMeta {
			switch k {
			case KeyTenant, KeyChunk, KeyModel, KeyKB, KeyDocument:
			case KeyTerms:
				if _, err := f.strings(id, k, v); err != nil {
					return nil, err
				}
			case KeyCreatedAt:
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
	return &point{id: id, rec: rec, payload: pl, sparse: sparse}, nil
}

// vectors reads a point's dense vector (unnamed, or "" in a map) and its
// sparse vector (SparseName in a map, nil when absent).
func (f *Server) vectors(c *collection, id string, vs *qc.Vectors) ([]float32, map[uint32]float64, error) {
	named := map[string]*qc.Vector{"": vs.GetVector()}
	if m := vs.GetVectors(); m != nil {
		named = m.GetVectors()
	}
	for name := range named {
		if name != "" && name != SparseName {
			return nil, nil, f.violate("upsert: point %s has an unknown vector %q", id, name)
		}
	}
	d := named[""]
	//lint:ignore SA1019 the adapter sends the plain data field, which every server version reads
	data := d.GetData()
	if dv := d.GetDense(); dv != nil {
		data = dv.GetData()
	}
	if uint64(len(data)) != c.params.GetSize() {
		return nil, nil, f.violate("upsert: point %s has %d dimensions, want %d", id, len(data), c.params.GetSize())
	}
	sv, has := named[SparseName]
	if !has {
		return slices.Clone(data), nil, nil
	}
	if c.sparse[SparseName] == nil {
		return nil, nil, f.violate("upsert: point %s has a sparse vector the collection lacks", id)
	}
	//lint:ignore SA1019 the adapter sends the plain data and indices fields, which every server version reads
	indices, values := sv.GetIndices().GetData(), sv.GetData()
	if sp := sv.GetSparse(); sp != nil {
		indices, values = sp.GetIndices(), sp.GetValues()
	}
	if len(indices) == 0 || len(indices) != len(values) {
		return nil, nil, f.violate("upsert: point %s: sparse vector of %d indices and %d values", id, len(indices), len(values))
	}
	sparse := make(map[uint32]float64, len(indices))
	for i, ix := range indices {
		if _, dup := sparse[ix]; dup {
			return nil, nil, f.violate("upsert: point %s: sparse index %d twice", id, ix)
		}
		if values[i] <= 0 {
			return nil, nil, f.violate("upsert: point %s: sparse value %v is not positive", id, values[i])
		}
		sparse[ix] = float64(values[i])
	}
	return slices.Clone(data), sparse, nil
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

// strings reads a list of strings.
func (f *Server) strings(id, key string, v *qc.Value) ([]string, error) {
	l, isList := v.GetKind().(*qc.Value_ListValue)
	if !isList {
		return nil, f.violate("upsert: point %s: %s is not a list: %v", id, key, v)
	}
	out := []string{}
	for _, e := range l.ListValue.GetValues() {
		s, isStr := e.GetKind().(*qc.Value_StringValue)
		if !isStr {
			return nil, f.violate("upsert: point %s: %s holds a non-string array element %v", id, key, e)
		}
		out = append(out, s.StringValue)
	}
	return out, nil
}

// metaFromValue converts a metadata payload value back: strings that are
// dates become times (what they were written from).
func (f *Server) metaFromValue(id, key string, v *qc.Value) (any, error) {
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
		return f.strings(id, key, v)
	}
	return nil, f.violate("upsert: point %s: %s has unexpected value %v", id, key, v)
}

// Delete implements qc.PointsServer: deletes by a filter naming the
// tenant and a document or knowledge base, or, in one shard key named
// without fallback (a promoted tenant's copies), the tenant alone.
func (s *pointsService) Delete(_ context.Context, req *qc.DeletePoints) (*qc.PointsOperationResponse, error) {
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
	sel := req.GetShardKeySelector()
	tenant, okT := topKeyword(flt, KeyTenant)
	doc, okD := topKeyword(flt, KeyDocument)
	kb, okK := topKeyword(flt, KeyKB)
	wholeTenant := c.custom && len(sel.GetShardKeys()) == 1 && sel.Fallback == nil && !okD && !okK
	if !okT || tenant == "" || okD == okK && !wholeTenant {
		return nil, f.violate("delete: filter must hold tenant_id and one of document_id / kb_id: %v", flt)
	}
	shards, err := f.route(c, sel, "delete")
	if err != nil {
		return nil, err
	}
	for _, sh := range shards {
		removed := 0
		for id, p := range sh.points {
			if f.eval(flt, p.payload) {
				delete(sh.points, id)
				removed++
			}
		}
		switch {
		case sh.stale:
		case wholeTenant:
			sh.stale = true // memindex deletes by document or knowledge base
		default:
			var n int
			if okD {
				n = sh.idx.DeleteDocument(domain.TenantID(tenant), doc)
			} else {
				n = sh.idx.DeleteKnowledgeBase(domain.TenantID(tenant), kb)
			}
			if n != removed {
				return nil, f.violate("delete: the filter removed %d points, memindex %d", removed, n)
			}
		}
	}
	return ok(), nil
}

// Count implements qc.PointsServer: exact counts of a tenant's points.
func (s *pointsService) Count(_ context.Context, req *qc.CountPoints) (*qc.CountResponse, error) {
	f := s.f
	f.mu.Lock()
	defer f.mu.Unlock()
	c, err := f.collection(req.GetCollectionName())
	if err != nil {
		return nil, err
	}
	if tenant, okT := topKeyword(req.GetFilter(), KeyTenant); !okT || tenant == "" {
		return nil, f.violate("count: filter lacks a top-level tenant_id condition: %v", req.GetFilter())
	}
	if !req.GetExact() {
		return nil, f.violate("count: not exact")
	}
	shards, err := f.route(c, req.GetShardKeySelector(), "count")
	if err != nil {
		return nil, err
	}
	n := uint64(0)
	for _, sh := range shards {
		for _, p := range sh.points {
			if f.eval(req.GetFilter(), p.payload) {
				n++
			}
		}
	}
	return &qc.CountResponse{Result: &qc.CountResult{Count: n}}, nil
}
