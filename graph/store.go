package graph

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"
	neo4jconfig "github.com/neo4j/neo4j-go-driver/v5/neo4j/config"
	"github.com/neo4j/neo4j-go-driver/v5/neo4j/notifications"

	"github.com/zimmerhq/zimmer/config"
	"github.com/zimmerhq/zimmer/queries"
)

// Sentinel errors callers branch on; every error out of this package wraps one of them or is
// an infrastructure failure.
var (
	ErrNotFound = errors.New("not found")
	ErrConflict = errors.New("conflict")
	ErrCycle    = errors.New("would create a cycle")
	ErrInvalid  = errors.New("invalid")
)

// Observer receives the latency of every statement by name; metrics implement it.
type Observer interface {
	ObserveStatement(name string, d time.Duration, err error)
}

type nopObserver struct{}

func (nopObserver) ObserveStatement(string, time.Duration, error) {}

// Options configure a Store.
type Options struct {
	URI, User, Password string
	Logger              *slog.Logger
	Observer            Observer
	Now                 func() time.Time
	// Settings names the AppSetting node the deployment's settings live on ("default"); the
	// tests give each test binary its own, so one package's policy never reaches another's.
	Settings string
}

// Store is the graph store. It is safe for concurrent use.
type Store struct {
	driver   neo4j.DriverWithContext
	log      *slog.Logger
	obs      Observer
	now      func() time.Time
	settings string
	classes  classCache
}

// Open connects to Neo4j and waits (up to wait) for it to answer, so a store that is still
// booting is not an error at start.
func Open(ctx context.Context, o Options, wait time.Duration) (*Store, error) {
	auth := neo4j.NoAuth()
	if o.User != "" {
		auth = neo4j.BasicAuth(o.User, o.Password, "")
	}
	driver, err := neo4j.NewDriverWithContext(o.URI, auth, func(c *neo4jconfig.Config) {
		c.MaxTransactionRetryTime = 15 * time.Second
		c.MaxConnectionPoolSize = 100
		c.ConnectionAcquisitionTimeout = 10 * time.Second
		c.SocketConnectTimeout = 2 * time.Second
		// Nothing reads a statement's notifications, and Neo4j would build them on every run
		// (a read of a fresh fleet's provenance carried 23, one per label or key no node has
		// yet) for the driver to parse: off, at the server.
		c.NotificationsMinSeverity = notifications.DisabledLevel
	})
	uri := config.RedactURL(o.URI)
	if err != nil {
		return nil, fmt.Errorf("neo4j driver for %s: %w", uri, err)
	}
	s := &Store{driver: driver, log: o.Logger, obs: o.Observer, now: o.Now, settings: cmp.Or(o.Settings, "default")}
	if s.log == nil {
		s.log = slog.Default()
	}
	if s.obs == nil {
		s.obs = nopObserver{}
	}
	if s.now == nil {
		s.now = time.Now
	}
	deadline := time.Now().Add(wait)
	for {
		err = driver.VerifyConnectivity(ctx)
		if err == nil {
			return s, nil
		}
		// Refused credentials do not get better by waiting, and every retry counts towards
		// Neo4j locking the user out.
		if ne := (*neo4j.Neo4jError)(nil); errors.As(err, &ne) && strings.HasPrefix(ne.Code, "Neo.ClientError.Security.") {
			_ = driver.Close(context.Background())
			return nil, fmt.Errorf("neo4j at %s refused the credentials (set NEO4J_USER and NEO4J_PASSWORD; `make up` keeps them in .zimmer/dev.env): %w", uri, err)
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			_ = driver.Close(context.Background())
			return nil, fmt.Errorf("neo4j at %s did not answer within %s (start it with `make up`, or set NEO4J_URI): %w", uri, wait, err)
		}
		time.Sleep(250 * time.Millisecond)
	}
}

// Close releases the driver's connections.
func (s *Store) Close(ctx context.Context) error { return s.driver.Close(ctx) }

// Ping proves the database answers a query.
func (s *Store) Ping(ctx context.Context) error {
	_, err := read(ctx, s, "ping", func(tx txn) (struct{}, error) {
		_, err := tx.single("ping", queries.Ping, nil)
		return struct{}{}, err
	})
	return err
}

// runner is what statement helpers need; both managed and explicit transactions satisfy it.
type runner interface {
	Run(ctx context.Context, cypher string, params map[string]any) (neo4j.ResultWithContext, error)
}

// txn is one open transaction as the statement helpers see it: named statements, timed.
type txn struct {
	ctx context.Context
	r   runner
	obs Observer
	s   *Store
}

const txTimeout = 30 * time.Second

// write runs fn in one managed write transaction; the driver may call fn more than once, so fn
// must have no effect outside the database.
func write[T any](ctx context.Context, s *Store, op string, fn func(txn) (T, error)) (T, error) {
	return execute(ctx, s, op, neo4j.AccessModeWrite, fn)
}

// read runs fn as a read, each of its statements in an auto-commit transaction: Neo4j reads are
// read-committed whether or not statements share a transaction, and an implicit one saves the
// round trip an explicit one spends on its commit, a third of a small read. A failure the driver
// would retry (a lost connection, a transient error) runs fn again as a managed read, which
// retries as every transaction does.
func read[T any](ctx context.Context, s *Store, op string, fn func(txn) (T, error)) (T, error) {
	tx, done := s.alone(ctx, neo4j.AccessModeRead, op)
	out, err := fn(tx)
	done()
	if retriable(err) && ctx.Err() == nil {
		return execute(ctx, s, op, neo4j.AccessModeRead, fn)
	}
	return out, translate(err)
}

// alone opens a session whose statements each run in an auto-commit transaction of their own;
// done releases it.
func (s *Store) alone(ctx context.Context, mode neo4j.AccessMode, op string) (tx txn, done func()) {
	sess := s.driver.NewSession(ctx, neo4j.SessionConfig{AccessMode: mode})
	return txn{ctx: ctx, r: autoCommit{sess, txConfig(op)}, obs: s.obs, s: s}, func() { sess.Close(context.Background()) }
}

// autoCommit runs each statement in its own implicit transaction.
type autoCommit struct {
	sess neo4j.SessionWithContext
	cfg  []func(*neo4j.TransactionConfig)
}

func (a autoCommit) Run(ctx context.Context, cypher string, params map[string]any) (neo4j.ResultWithContext, error) {
	return a.sess.Run(ctx, cypher, params, a.cfg...)
}

// retriable reports whether the driver would retry err or any error it wraps.
func retriable(err error) bool {
	for ; err != nil; err = errors.Unwrap(err) {
		if neo4j.IsRetryable(err) {
			return true
		}
	}
	return false
}

// txConfig bounds a transaction and names its operation for Neo4j's query log.
func txConfig(op string) []func(*neo4j.TransactionConfig) {
	return []func(*neo4j.TransactionConfig){neo4j.WithTxTimeout(txTimeout), neo4j.WithTxMetadata(map[string]any{"op": op})}
}

func execute[T any](ctx context.Context, s *Store, op string, mode neo4j.AccessMode, fn func(txn) (T, error)) (T, error) {
	sess := s.driver.NewSession(ctx, neo4j.SessionConfig{AccessMode: mode})
	defer sess.Close(context.Background())
	work := func(tx neo4j.ManagedTransaction) (T, error) { return fn(txn{ctx: ctx, r: tx, obs: s.obs, s: s}) }
	cfg := txConfig(op)
	var (
		out T
		err error
	)
	if mode == neo4j.AccessModeWrite {
		out, err = neo4j.ExecuteWrite(ctx, sess, work, cfg...)
	} else {
		out, err = neo4j.ExecuteRead(ctx, sess, work, cfg...)
	}
	return out, translate(err)
}

// collect runs one named statement and returns all its records.
func (t txn) collect(name, cypher string, params map[string]any) ([]*neo4j.Record, error) {
	start := time.Now()
	res, err := t.r.Run(t.ctx, cypher, params)
	var recs []*neo4j.Record
	if err == nil {
		recs, err = res.Collect(t.ctx)
	}
	t.obs.ObserveStatement(name, time.Since(start), err)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return recs, nil
}

// single runs a statement expected to return at most one record; no record is ErrNotFound.
func (t txn) single(name, cypher string, params map[string]any) (*neo4j.Record, error) {
	recs, err := t.collect(name, cypher, params)
	if err != nil {
		return nil, err
	}
	if len(recs) == 0 {
		return nil, fmt.Errorf("%s: %w", name, ErrNotFound)
	}
	return recs[0], nil
}

// translate maps driver failures onto the package's sentinels, once, at the boundary.
func translate(err error) error {
	var ne *neo4j.Neo4jError
	if errors.As(err, &ne) && ne.Code == "Neo.ClientError.Schema.ConstraintValidationFailed" {
		return fmt.Errorf("%w: %s", ErrConflict, ne.Msg)
	}
	return err
}
