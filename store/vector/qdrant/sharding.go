package qdrant

import (
	"context"
	"fmt"

	qc "github.com/qdrant/go-client/qdrant"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/cs-assistant/assistant/domain"
)

// SharedShardKey is the shard key of a tiered collection that holds every
// tenant without a shard key of its own. It starts with '_', which no
// tenant id does, so it never names a tenant's key.
const SharedShardKey = "_shared"

// shardKeys routes a request of tenant in a tiered collection: to the
// tenant's own shard key when it has one (and it is active), else to the
// shared one (Qdrant's fallback routing, 1.16 and later). Auto-sharded
// collections take no selector (nil).
func (s *Store) shardKeys(tenant domain.TenantID) *qc.ShardKeySelector {
	if !s.tiered.Load() {
		return nil
	}
	return &qc.ShardKeySelector{
		ShardKeys: []*qc.ShardKey{qc.NewShardKey(string(tenant))},
		Fallback:  qc.NewShardKey(SharedShardKey),
	}
}

// onlyKey selects one shard key, without fallback.
func onlyKey(key string) *qc.ShardKeySelector {
	return &qc.ShardKeySelector{ShardKeys: []*qc.ShardKey{qc.NewShardKey(key)}}
}

// ensureSharedKey creates the shared shard key of a tiered collection
// unless it exists (another replica may be making it at the same time).
func (s *Store) ensureSharedKey(ctx context.Context) error {
	has, err := s.hasShardKey(ctx, SharedShardKey)
	if err != nil || has {
		return err
	}
	err = s.createShardKey(ctx, SharedShardKey, s.cfg.ShardNumber, s.cfg.ReplicationFactor, nil)
	if err != nil && domain.ErrorCodeOf(err) != domain.CodeUnavailable {
		if has, again := s.hasShardKey(ctx, SharedShardKey); again == nil && has {
			return nil
		}
	}
	return err
}

// hasShardKey reports whether the collection has shard key key.
func (s *Store) hasShardKey(ctx context.Context, key string) (bool, error) {
	var keys []*qc.ShardKeyDescription
	err := s.call(ctx, "list shard keys", func(ctx context.Context) (err error) {
		keys, err = s.client.ListShardKeys(ctx, s.collection)
		return err
	})
	for _, k := range keys {
		if k.GetKey().GetKeyword() == key {
			return true, nil
		}
	}
	return false, err
}

// createShardKey creates shard key key (0 counts are Qdrant's defaults);
// state, when set, is its replicas' initial state.
func (s *Store) createShardKey(ctx context.Context, key string, shards, replication uint32, state *qc.ReplicaState) error {
	req := &qc.CreateShardKey{ShardKey: qc.NewShardKey(key), InitialState: state}
	if shards > 0 {
		req.ShardsNumber = qc.PtrOf(shards)
	}
	if replication > 0 {
		req.ReplicationFactor = qc.PtrOf(replication)
	}
	return s.call(ctx, "create shard key "+key, func(ctx context.Context) error {
		return s.client.CreateShardKey(ctx, s.collection, req)
	})
}

// Promotion says how a promoted tenant's shard key is laid out (0: the
// collection's settings, see Config).
type Promotion struct {
	Shards, ReplicationFactor uint32
	// Peers, when set, are the Qdrant peers its shards may be placed on.
	Peers []uint64
}

// PromoteTenant moves tenant of a tiered collection to a shard key of its
// own, named by its id, without stopping reads or writes: it creates the
// key in the Partial state and asks Qdrant to copy the tenant's points
// there from the shared key. Qdrant copies in the background; once the
// key's replicas are active every request of the tenant goes there (the
// fallback routing of shardKeys), and FinishPromotion drops the tenant's
// copies from the shared key. Running it again for a key that exists only
// asks for the copy again. Errors: CodeValidation for a missing tenant,
// CodeConflict on an auto-sharded collection.
func (s *Store) PromoteTenant(ctx context.Context, tenant domain.TenantID, p Promotion) error {
	if tenant == "" {
		return domain.Errorf(domain.CodeValidation, "The tenant is missing.")
	}
	if !s.tiered.Load() {
		return domain.Errorf(domain.CodeConflict, "Collection %q is not tiered: create it with sharding %q to give a tenant its own shard key.", s.collection, ShardingTiered)
	}
	key := string(tenant)
	has, err := s.hasShardKey(ctx, key)
	if err != nil {
		return err
	}
	if !has {
		if p.ReplicationFactor == 0 {
			p.ReplicationFactor = s.cfg.ReplicationFactor
		}
		err := s.createShardKey(ctx, key, p.Shards, p.ReplicationFactor, qc.ReplicaState_Partial.Enum())
		if err != nil && status.Code(err) != codes.AlreadyExists {
			return err
		}
	}
	return s.call(ctx, "replicate points", func(ctx context.Context) error {
		return s.client.UpdateClusterCollectionSetup(ctx, qc.NewUpdateCollectionClusterReplicatePoints(s.collection, &qc.ReplicatePoints{
			FromShardKey: qc.NewShardKey(SharedShardKey),
			ToShardKey:   qc.NewShardKey(key),
			Filter:       &qc.Filter{Must: []*qc.Condition{qc.NewMatchKeyword(keyTenant, key)}},
		}))
	})
}

// FinishPromotion deletes the tenant's points from the shared shard key
// once every replica of its own key is active, which is when Qdrant no
// longer routes any of its requests to the shared key. Errors:
// CodeConflict while the copy is under way (or never started: call
// PromoteTenant), CodeValidation for a missing tenant.
func (s *Store) FinishPromotion(ctx context.Context, tenant domain.TenantID) error {
	if tenant == "" {
		return domain.Errorf(domain.CodeValidation, "The tenant is missing.")
	}
	if !s.tiered.Load() {
		return domain.Errorf(domain.CodeConflict, "Collection %q is not tiered.", s.collection)
	}
	var info *qc.CollectionClusterInfoResponse
	err := s.call(ctx, "cluster info", func(ctx context.Context) (err error) {
		info, err = s.client.GetCollectionClusterInfo(ctx, s.collection)
		return err
	})
	if err != nil {
		return err
	}
	replicas, active := 0, 0
	count := func(key *qc.ShardKey, st qc.ReplicaState) {
		if key.GetKeyword() == string(tenant) {
			replicas++
			if st == qc.ReplicaState_Active {
				active++
			}
		}
	}
	for _, sh := range info.GetLocalShards() {
		count(sh.GetShardKey(), sh.GetState())
	}
	for _, sh := range info.GetRemoteShards() {
		count(sh.GetShardKey(), sh.GetState())
	}
	if replicas == 0 || active < replicas {
		return &domain.Error{Code: domain.CodeConflict,
			Message: fmt.Sprintf("Tenant %s's shard key is not active yet (%d of %d replicas).", tenant, active, replicas)}
	}
	return s.call(ctx, "delete promoted tenant", func(ctx context.Context) error {
		res, err := s.client.Delete(ctx, &qc.DeletePoints{
			CollectionName:   s.collection,
			Wait:             qc.PtrOf(true),
			ShardKeySelector: onlyKey(SharedShardKey),
			Points: qc.NewPointsSelectorFilter(&qc.Filter{Must: []*qc.Condition{
				qc.NewMatchKeyword(keyTenant, string(tenant)),
			}}),
		})
		return checkUpdate("delete", res, err)
	})
}
