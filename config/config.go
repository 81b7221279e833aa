package config

import (
	"fmt"
	"log/slog"
	"net"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/cs-assistant/assistant/access"
	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/internal/outbound"
	"github.com/cs-assistant/assistant/pipelines/ingest/parse"
	"github.com/cs-assistant/assistant/store/chunkcache"
	"github.com/cs-assistant/assistant/store/hybrid"
	"github.com/cs-assistant/assistant/store/vector/qdrant"
)

// Config is everything the service reads from its environment, parsed once
// at start (Load).
type Config struct {
	// Addr is the listen address (ASSISTANT_ADDR).
	Addr string
	// MetricsAddr, when set, is where GET /metrics is served instead of on
	// Addr (ASSISTANT_METRICS_ADDR, host:port; the image sets
	// 0.0.0.0:9090, which compose does not publish): the scrape endpoint
	// has no key, so it stays off the address the API is published on.
	MetricsAddr string
	// DatabaseURL is the PostgreSQL connection string (DATABASE_URL, or
	// read from the file DATABASE_URL_FILE, since it holds the password).
	DatabaseURL string
	// DataDir holds local state such as the default key file (ASSISTANT_DATA_DIR).
	DataDir string
	// DefaultAPIKey, when set, is the secret of the default platform key
	// (ASSISTANT_DEFAULT_API_KEY, or read from the file ASSISTANT_DEFAULT_API_KEY_FILE).
	DefaultAPIKey string
	// MaxBodyBytes bounds JSON request bodies (ASSISTANT_MAX_BODY_BYTES).
	MaxBodyBytes int64
	// MaxUploadBytes bounds an uploaded file (ASSISTANT_MAX_UPLOAD_BYTES).
	MaxUploadBytes int64
	// IndexWorkers is how many index jobs this process runs at once (ASSISTANT_INDEX_WORKERS).
	IndexWorkers int
	// IndexJobsPerTenant is the most index jobs of one tenant running at
	// once, on every replica together (ASSISTANT_INDEX_JOBS_PER_TENANT;
	// default one less than IndexWorkers, at least 1; 0 is no cap): a
	// tenant whose provider hangs never holds every worker.
	IndexJobsPerTenant int
	// IndexProviderTimeout and IndexProviderRetries bound every call an
	// index job makes to a tenant's provider (embedding, generated
	// questions): the timeout of each attempt and the retries after the
	// first, whatever the tenant configured (ASSISTANT_INDEX_PROVIDER_TIMEOUT,
	// default 30s; ASSISTANT_INDEX_PROVIDER_RETRIES, default 2).
	IndexProviderTimeout time.Duration
	IndexProviderRetries int
	// IndexLease is how long an index job stays with a worker that stopped
	// sending heartbeats before another takes it over (ASSISTANT_INDEX_LEASE).
	IndexLease time.Duration
	// IndexMemoryBytes bounds the embedded search index: past it, the
	// tenants searched least recently are evicted and load again on use
	// (ASSISTANT_INDEX_MEMORY_BYTES, default 2 GiB; not used with Qdrant).
	IndexMemoryBytes int64
	// ChunkCacheBytes bounds the cache of the chunks answers quote
	// (ASSISTANT_CHUNK_CACHE_BYTES, default 64 MiB).
	ChunkCacheBytes int64
	// IndexDir is where the embedded search index maps its float32
	// vectors from (ASSISTANT_INDEX_DIR; os.TempDir() when empty): a
	// directory on disk, so that the kernel may drop cold pages.
	IndexDir string
	// FrontendBaseURL is the default share-link base (FRONTEND_BASE_URL).
	FrontendBaseURL string
	// LogLevel is LOG_LEVEL: debug, info, warn or error.
	LogLevel slog.Level
	// LogFormat is LOG_FORMAT: json or text.
	LogFormat string
	// QdrantURL, when set, keeps vectors in Qdrant instead of the embedded
	// store (QDRANT_URL, e.g. http://qdrant:6334, gRPC).
	QdrantURL string
	// QdrantAPIKey authenticates to Qdrant (QDRANT_API_KEY, or read from
	// the file QDRANT_API_KEY_FILE).
	QdrantAPIKey string
	// QdrantCollection names the collection (QDRANT_COLLECTION, default
	// assistant_chunks); QdrantSharding, QdrantShards and
	// QdrantReplicationFactor lay out one that the service creates
	// (QDRANT_SHARDING auto or tiered, QDRANT_SHARDS,
	// QDRANT_REPLICATION_FACTOR; see qdrant.Config).
	QdrantCollection                      string
	QdrantSharding                        qdrant.Sharding
	QdrantShards, QdrantReplicationFactor uint32
	// ShutdownTimeout bounds the wait for in-flight requests (ASSISTANT_SHUTDOWN_TIMEOUT).
	ShutdownTimeout time.Duration
	// BodyReadTimeout bounds reading a JSON request body; an upload gets it
	// plus its size at 64 KiB/s (ASSISTANT_BODY_READ_TIMEOUT).
	BodyReadTimeout time.Duration
	// RateLimitPerKey and RateLimitPerTenant are the default request rate
	// limits in requests per minute (ASSISTANT_RATE_LIMIT_PER_KEY,
	// ASSISTANT_RATE_LIMIT_PER_TENANT; 0 is unlimited).
	RateLimitPerKey, RateLimitPerTenant int
	// Quotas are the platform's default quotas of every tenant
	// (ASSISTANT_QUOTA_<NAME>, e.g. ASSISTANT_QUOTA_DOCUMENTS; 0 is no
	// limit; see loadQuotas for the defaults). A platform key overrides
	// them per tenant.
	Quotas domain.QuotaValues
	// ShareRateLimitPerShare and ShareRateLimitPerAddress limit the public
	// share page, in requests per minute per share link and per client
	// address (ASSISTANT_SHARE_RATE_LIMIT_PER_SHARE, default 120;
	// ASSISTANT_SHARE_RATE_LIMIT_PER_ADDRESS, default 300; 0 is unlimited).
	// The address is the connection's: behind a proxy, the proxy's.
	ShareRateLimitPerShare, ShareRateLimitPerAddress int
	// CORSOrigins are the browser origins allowed to call the API
	// (ASSISTANT_CORS_ORIGINS, comma-separated; default the origin of
	// FRONTEND_BASE_URL; "none" for no CORS headers).
	CORSOrigins []string
	// OTelEndpoint, when set, is the OTLP/HTTP collector spans are sent to
	// (OTEL_EXPORTER_OTLP_ENDPOINT, e.g. http://collector:4318; the
	// exporter posts to its /v1/traces).
	OTelEndpoint string
	// OTelServiceName is the service.name of the spans (OTEL_SERVICE_NAME,
	// default assistant).
	OTelServiceName string
	// OutboundAllow names the internal hosts and networks every tenant's
	// model, embedding and webhook URLs may point to
	// (ASSISTANT_OUTBOUND_ALLOW, comma-separated host[:port] or CIDR, e.g.
	// "ollama:11434,10.20.0.0/16"; default none). Everything else internal
	// (loopback, private, link-local, CGNAT, …) is refused at dial time,
	// except in configurations a platform key set.
	OutboundAllow outbound.AllowList
	// Production is ASSISTANT_ENV=production (the container image sets
	// it): the service then refuses to start without SecretKey. Otherwise
	// (development, the default of a source checkout and of `make run`) a
	// missing key is generated once and kept in DataDir/secret-key.
	Production bool
	// SecretKey seals the provider API keys the service stores (AES-256-GCM;
	// ASSISTANT_SECRET_KEY or the file ASSISTANT_SECRET_KEY_FILE: 32 random
	// bytes as 64 hex digits or base64, e.g. `openssl rand -hex 32`).
	SecretKey []byte
	// SecretKeyPrevious open values sealed before a rotation
	// (ASSISTANT_SECRET_KEY_PREVIOUS, comma-separated keys); the service
	// re-seals them with SecretKey at start, after which they may go.
	SecretKeyPrevious [][]byte
	// OCRLanguages is tesseract's -l for images (ASSISTANT_OCR_LANGUAGES,
	// default eng+chi_sim; the image, which has Traditional Chinese data
	// too, sets eng+chi_sim+chi_tra). Each needs its Debian package
	// tesseract-ocr-<code>; a missing one fails images with
	// ocr_unavailable naming it.
	OCRLanguages string
	// SentenceEncoder is ASSISTANT_SENTENCE_ENCODER: "on" loads the
	// sentence encoder's weights from DataDir/models when they are there
	// (make run and make test fetch them), and the offline answerer then
	// ranks the English evidence sentences by meaning as well as by
	// words; "off" (the default: measured on make eval it gains and loses
	// about as many answers, docs/answer-quality.md) ranks by words.
	SentenceEncoder bool
}

// DefaultAddr is the listen address when ASSISTANT_ADDR is unset.
const DefaultAddr = "127.0.0.1:8080"

// Load reads the configuration through getenv. A bad value is an error
// naming the variable, in one line.
func Load(getenv func(string) string) (Config, error) {
	c := Config{
		Addr:            orDefault(getenv("ASSISTANT_ADDR"), DefaultAddr),
		DatabaseURL:     getenv("DATABASE_URL"),
		DataDir:         orDefault(getenv("ASSISTANT_DATA_DIR"), ".data"),
		DefaultAPIKey:   getenv("ASSISTANT_DEFAULT_API_KEY"),
		FrontendBaseURL: strings.TrimRight(orDefault(getenv("FRONTEND_BASE_URL"), "http://localhost:3000"), "/"),
		LogFormat:       orDefault(getenv("LOG_FORMAT"), "json"),
		QdrantURL:       getenv("QDRANT_URL"),
		QdrantAPIKey:    getenv("QDRANT_API_KEY"),
		OTelEndpoint:    strings.TrimSpace(getenv("OTEL_EXPORTER_OTLP_ENDPOINT")),
		OTelServiceName: orDefault(getenv("OTEL_SERVICE_NAME"), "assistant"),
	}
	if _, _, err := net.SplitHostPort(c.Addr); err != nil {
		return c, fmt.Errorf("ASSISTANT_ADDR: want host:port, got %q", c.Addr)
	}
	if c.MetricsAddr = getenv("ASSISTANT_METRICS_ADDR"); c.MetricsAddr != "" {
		if _, _, err := net.SplitHostPort(c.MetricsAddr); err != nil || c.MetricsAddr == c.Addr {
			return c, fmt.Errorf("ASSISTANT_METRICS_ADDR: want a host:port other than ASSISTANT_ADDR's, got %q", c.MetricsAddr)
		}
	}
	if _, err := secretFromFile(&c.DatabaseURL, "DATABASE_URL", getenv); err != nil {
		return c, err
	}
	if _, err := secretFromFile(&c.QdrantAPIKey, "QDRANT_API_KEY", getenv); err != nil {
		return c, err
	}
	if c.DatabaseURL == "" {
		return c, fmt.Errorf("DATABASE_URL: required (`make run` starts a local PostgreSQL and sets it)")
	}
	if _, err := pgconn.ParseConfig(c.DatabaseURL); err != nil {
		return c, fmt.Errorf("DATABASE_URL: not a PostgreSQL connection string")
	}
	keyVar, err := secretFromFile(&c.DefaultAPIKey, "ASSISTANT_DEFAULT_API_KEY", getenv)
	if err != nil {
		return c, err
	}
	if c.DefaultAPIKey != "" && !access.WellFormedSecret(c.DefaultAPIKey) {
		return c, fmt.Errorf("%s: must be 'ak_' followed by 32 to 97 base62 characters", keyVar)
	}
	if c.MaxBodyBytes, err = positiveInt(getenv("ASSISTANT_MAX_BODY_BYTES"), 1<<20); err != nil {
		return c, fmt.Errorf("ASSISTANT_MAX_BODY_BYTES: %w", err)
	}
	if c.MaxUploadBytes, err = positiveInt(getenv("ASSISTANT_MAX_UPLOAD_BYTES"), 20<<20); err != nil {
		return c, fmt.Errorf("ASSISTANT_MAX_UPLOAD_BYTES: %w", err)
	}
	workers, err := positiveInt(getenv("ASSISTANT_INDEX_WORKERS"), 2)
	if err != nil || workers > 64 {
		return c, fmt.Errorf("ASSISTANT_INDEX_WORKERS: want 1 to 64, got %q", getenv("ASSISTANT_INDEX_WORKERS"))
	}
	c.IndexWorkers = int(workers)
	if err := loadIndexJobs(&c, getenv); err != nil {
		return c, err
	}
	if c.IndexMemoryBytes, err = positiveInt(getenv("ASSISTANT_INDEX_MEMORY_BYTES"), hybrid.DefaultMemoryBytes); err != nil {
		return c, fmt.Errorf("ASSISTANT_INDEX_MEMORY_BYTES: %w", err)
	}
	c.IndexDir = getenv("ASSISTANT_INDEX_DIR")
	if c.ChunkCacheBytes, err = positiveInt(getenv("ASSISTANT_CHUNK_CACHE_BYTES"), chunkcache.DefaultMaxBytes); err != nil {
		return c, fmt.Errorf("ASSISTANT_CHUNK_CACHE_BYTES: %w", err)
	}
	if c.IndexLease, err = time.ParseDuration(orDefault(getenv("ASSISTANT_INDEX_LEASE"), "30s")); err != nil || c.IndexLease < time.Second {
		return c, fmt.Errorf("ASSISTANT_INDEX_LEASE: want a duration of at least 1s such as 30s, got %q", getenv("ASSISTANT_INDEX_LEASE"))
	}
	if u, err := url.Parse(c.FrontendBaseURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return c, fmt.Errorf("FRONTEND_BASE_URL: want an http(s) URL, got %q", c.FrontendBaseURL)
	}
	if err := c.LogLevel.UnmarshalText([]byte(orDefault(getenv("LOG_LEVEL"), "info"))); err != nil {
		return c, fmt.Errorf("LOG_LEVEL: want debug, info, warn or error, got %q", getenv("LOG_LEVEL"))
	}
	if c.LogFormat != "json" && c.LogFormat != "text" {
		return c, fmt.Errorf("LOG_FORMAT: want json or text, got %q", c.LogFormat)
	}
	if c.ShutdownTimeout, err = time.ParseDuration(orDefault(getenv("ASSISTANT_SHUTDOWN_TIMEOUT"), "30s")); err != nil || c.ShutdownTimeout <= 0 {
		return c, fmt.Errorf("ASSISTANT_SHUTDOWN_TIMEOUT: want a positive duration such as 30s, got %q", getenv("ASSISTANT_SHUTDOWN_TIMEOUT"))
	}
	perKey, err := nonNegativeInt(getenv("ASSISTANT_RATE_LIMIT_PER_KEY"), 1200)
	if err != nil {
		return c, fmt.Errorf("ASSISTANT_RATE_LIMIT_PER_KEY: %w", err)
	}
	perTenant, err := nonNegativeInt(getenv("ASSISTANT_RATE_LIMIT_PER_TENANT"), 6000)
	if err != nil {
		return c, fmt.Errorf("ASSISTANT_RATE_LIMIT_PER_TENANT: %w", err)
	}
	c.RateLimitPerKey, c.RateLimitPerTenant = int(perKey), int(perTenant)
	if err := loadShareRateLimits(&c, getenv); err != nil {
		return c, err
	}
	if err := loadQuotas(&c, getenv); err != nil {
		return c, err
	}
	if err := loadQdrantLayout(&c, getenv); err != nil {
		return c, err
	}
	if u, err := url.Parse(c.OTelEndpoint); c.OTelEndpoint != "" && (err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "") {
		return c, fmt.Errorf("OTEL_EXPORTER_OTLP_ENDPOINT: want an http(s) URL such as http://collector:4318, got %q", c.OTelEndpoint)
	}
	if c.CORSOrigins, err = corsOrigins(getenv("ASSISTANT_CORS_ORIGINS"), c.FrontendBaseURL); err != nil {
		return c, fmt.Errorf("ASSISTANT_CORS_ORIGINS: %w", err)
	}
	if c.BodyReadTimeout, err = time.ParseDuration(orDefault(getenv("ASSISTANT_BODY_READ_TIMEOUT"), "30s")); err != nil || c.BodyReadTimeout <= 0 {
		return c, fmt.Errorf("ASSISTANT_BODY_READ_TIMEOUT: want a positive duration such as 30s, got %q", getenv("ASSISTANT_BODY_READ_TIMEOUT"))
	}
	if c.OutboundAllow, err = outbound.ParseAllowList(getenv("ASSISTANT_OUTBOUND_ALLOW")); err != nil {
		return c, fmt.Errorf("ASSISTANT_OUTBOUND_ALLOW: %w", err)
	}
	if err := loadSecretKeys(&c, getenv); err != nil {
		return c, err
	}
	if c.OCRLanguages = orDefault(getenv("ASSISTANT_OCR_LANGUAGES"), "eng+chi_sim"); !parse.ValidOCRLanguages(c.OCRLanguages) {
		return c, fmt.Errorf("ASSISTANT_OCR_LANGUAGES: want tesseract codes joined by +, such as eng+chi_sim+chi_tra, got %q", c.OCRLanguages)
	}
	switch v := orDefault(getenv("ASSISTANT_SENTENCE_ENCODER"), "off"); v {
	case "on", "off":
		c.SentenceEncoder = v == "on"
	default:
		return c, fmt.Errorf("ASSISTANT_SENTENCE_ENCODER: want on or off, got %q", v)
	}
	return c, nil
}

// corsOrigins reads the comma-separated origin list; empty means the
// origin of the front-end base URL, "none" means no browser access.
func corsOrigins(list, frontend string) ([]string, error) {
	if strings.TrimSpace(list) == "none" {
		return nil, nil
	}
	if strings.TrimSpace(list) == "" {
		u, _ := url.Parse(frontend)
		return []string{u.Scheme + "://" + u.Host}, nil
	}
	var out []string
	for _, o := range strings.Split(list, ",") {
		o = strings.TrimRight(strings.TrimSpace(o), "/")
		if o == "*" {
			out = append(out, o)
			continue
		}
		u, err := url.Parse(o)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.Path != "" || u.RawQuery != "" {
			return nil, fmt.Errorf("want origins such as https://app.example.com (scheme and host, no path), '*' or none, got %q", o)
		}
		out = append(out, o)
	}
	return out, nil
}

// LogValue masks the secrets when the configuration is logged.
func (c Config) LogValue() slog.Value {
	return slog.GroupValue(
		slog.String("addr", c.Addr),
		slog.String("metrics_addr", c.MetricsAddr),
		slog.String("database_url", maskURL(c.DatabaseURL)),
		slog.String("data_dir", c.DataDir),
		slog.Bool("default_api_key_set", c.DefaultAPIKey != ""),
		slog.Int64("max_body_bytes", c.MaxBodyBytes),
		slog.Int64("max_upload_bytes", c.MaxUploadBytes),
		slog.Int("index_workers", c.IndexWorkers),
		slog.Int("index_jobs_per_tenant", c.IndexJobsPerTenant),
		slog.String("index_provider_timeout", c.IndexProviderTimeout.String()),
		slog.Int("index_provider_retries", c.IndexProviderRetries),
		slog.String("index_lease", c.IndexLease.String()),
		slog.Int64("index_memory_bytes", c.IndexMemoryBytes),
		slog.Int64("chunk_cache_bytes", c.ChunkCacheBytes),
		slog.String("index_dir", c.IndexDir),
		slog.String("frontend_base_url", c.FrontendBaseURL),
		slog.String("log_level", c.LogLevel.String()),
		slog.String("log_format", c.LogFormat),
		slog.String("qdrant_url", maskURL(c.QdrantURL)),
		slog.Bool("qdrant_api_key_set", c.QdrantAPIKey != ""),
		slog.String("shutdown_timeout", c.ShutdownTimeout.String()),
		slog.String("body_read_timeout", c.BodyReadTimeout.String()),
		slog.Any("cors_origins", c.CORSOrigins),
		slog.String("otel_exporter_otlp_endpoint", maskURL(c.OTelEndpoint)),
		slog.String("otel_service_name", c.OTelServiceName),
		slog.String("outbound_allow", c.OutboundAllow.String()),
		slog.Bool("production", c.Production),
		slog.Bool("secret_key_set", c.SecretKey != nil),
		slog.Bool("sentence_encoder", c.SentenceEncoder),
		slog.String("ocr_languages", c.OCRLanguages),
		slog.Int("secret_keys_previous", len(c.SecretKeyPrevious)),
		slog.Int("rate_limit_per_key", c.RateLimitPerKey),
		slog.Int("rate_limit_per_tenant", c.RateLimitPerTenant),
		slog.Int("share_rate_limit_per_share", c.ShareRateLimitPerShare),
		slog.Int("share_rate_limit_per_address", c.ShareRateLimitPerAddress),
		slog.Any("quotas", quotaAttrs(c.Quotas)),
	)
}

// maskURL hides the password of a URL-form connection string; a key=value
// one is hidden whole, since it may carry password=….
func maskURL(s string) string {
	if s == "" {
		return ""
	}
	u, err := url.Parse(s)
	if err != nil || u.Scheme == "" {
		return "[masked]"
	}
	if _, ok := u.User.Password(); ok {
		u.User = url.UserPassword(u.User.Username(), "xxxxx")
	}
	return u.Redacted()
}

func orDefault(v, def string) string {
	if v == "" {
		return def
	}
	return v
}

func positiveInt(v string, def int64) (int64, error) {
	if v == "" {
		return def, nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n <= 0 {
		return 0, fmt.Errorf("want a positive number of bytes, got %q", v)
	}
	return n, nil
}

// nonNegativeInt reads a count where 0 means "no limit".
func nonNegativeInt(v string, def int64) (int64, error) {
	if v == "" {
		return def, nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 0 || n > 1_000_000_000 {
		return 0, fmt.Errorf("want a number of requests per minute (0 for no limit), got %q", v)
	}
	return n, nil
}
