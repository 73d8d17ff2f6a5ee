package adminweb

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/clarify-bot/clarify/internal/kv"
	"github.com/clarify-bot/clarify/internal/seenstore"
)

// Why a sign-in link or a session is refused. The pages word each one.
var (
	errLinkInvalid = errors.New("the sign-in link is not valid")
	errLinkExpired = errors.New("the sign-in link has expired")
	errLinkUsed    = errors.New("the sign-in link was already used")
	errNotAdmin    = errors.New("not an admin")
	errNoSession   = errors.New("not signed in")
	errIdle        = errors.New("signed out after a time without activity")
)

// MinKeyLen is the shortest signing key accepted (256 bits).
const MinKeyLen = 32

// linkPurpose is mixed into every link's MAC, so that the key could sign
// something else one day without a link being mistaken for it.
const linkPurpose = "clarify admin sign-in link v1\n"

// claims are what a sign-in link says: who, until when, and a nonce that
// makes it single use.
type claims struct {
	User    string `json:"u"`
	Issued  int64  `json:"i"`
	Expires int64  `json:"e"`
	Nonce   string `json:"n"`
	// Via is where the link was asked for: slack, discord, console, cli.
	Via string `json:"v,omitempty"`
}

// links signs and checks sign-in links with an HMAC-SHA256 key.
type links struct {
	key []byte
	ttl time.Duration
	now func() time.Time
}

// token makes a signed token for id, valid for the links' TTL.
func (l links) token(id Identity, via string) (string, error) {
	nonce := make([]byte, 16)
	if _, err := rand.Read(nonce); err != nil {
		return "", fmt.Errorf("sign-in link: %w", err)
	}
	now := l.now()
	c := claims{User: id.UserKey(), Issued: now.Unix(), Expires: now.Add(l.ttl).Unix(), Nonce: base64.RawURLEncoding.EncodeToString(nonce), Via: via}
	body, err := json.Marshal(c)
	if err != nil {
		return "", fmt.Errorf("sign-in link: %w", err)
	}
	payload := base64.RawURLEncoding.EncodeToString(body)
	return payload + "." + base64.RawURLEncoding.EncodeToString(l.mac(payload)), nil
}

func (l links) mac(payload string) []byte {
	m := hmac.New(sha256.New, l.key)
	m.Write([]byte(linkPurpose))
	m.Write([]byte(payload))
	return m.Sum(nil)
}

// check verifies a token's signature and times (not whether it was used).
func (l links) check(token string) (claims, Identity, error) {
	payload, sig, ok := strings.Cut(strings.TrimSpace(token), ".")
	if !ok || len(token) > 2048 {
		return claims{}, Identity{}, errLinkInvalid
	}
	got, err := base64.RawURLEncoding.DecodeString(sig)
	if err != nil || !hmac.Equal(got, l.mac(payload)) {
		return claims{}, Identity{}, errLinkInvalid
	}
	body, err := base64.RawURLEncoding.DecodeString(payload)
	if err != nil {
		return claims{}, Identity{}, errLinkInvalid
	}
	var c claims
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&c); err != nil || c.Nonce == "" {
		return claims{}, Identity{}, errLinkInvalid
	}
	id, err := ParseUser(c.User)
	if err != nil {
		return claims{}, Identity{}, errLinkInvalid
	}
	now := l.now().Unix()
	// A link from the future (a clock far ahead) is as suspect as an old one.
	if now >= c.Expires || c.Issued > now+60 {
		return c, id, errLinkExpired
	}
	return c, id, nil
}

// Key layout of the console's state (shared by replicas on a server):
//
//	admin_sessions   sha256(session id) → {"v":1,…}
//	admin_dismissed  proposal key → {"v":1,…}
//	seen, seen_exp   used sign-in link nonces (internal/seenstore)
var (
	bucketSessions  = []byte("admin_sessions")
	bucketDismissed = []byte("admin_dismissed")
)

// stateVersion is the layout above.
const stateVersion = "1"

// session is one signed-in admin. The cookie holds a random id; the store
// holds only its hash, so a copy of the store signs nobody in.
type session struct {
	V    int    `json:"v"`
	User string `json:"user"`
	// From is the address the session was opened from.
	From    string    `json:"from,omitempty"`
	Created time.Time `json:"created"`
	Seen    time.Time `json:"seen"`
	// Checked is when the person was last confirmed an admin.
	Checked time.Time `json:"checked"`
	CSRF    string    `json:"csrf"`
}

// state keeps sessions, used links and dismissed proposals in a kv store.
type state struct {
	db   kv.DB
	used *seenstore.Store
	now  func() time.Time
}

func newState(ctx context.Context, db kv.DB, now func() time.Time) (*state, error) {
	if err := kv.Prepare(ctx, db, stateVersion, nil, bucketSessions, bucketDismissed); err != nil {
		return nil, fmt.Errorf("admin console state: %w", err)
	}
	return &state{db: db, used: seenstore.New(db, now), now: now}, nil
}

// spend marks a link's nonce used; false when it already was. Replicas
// sharing the store agree: exactly one of two racing sign-ins wins.
func (s *state) spend(ctx context.Context, c claims) (bool, error) {
	ttl := max(time.Unix(c.Expires, 0).Sub(s.now())+time.Minute, time.Minute)
	return s.used.First(ctx, "admin-link:"+c.Nonce, ttl)
}

func sessionKey(id string) []byte {
	sum := sha256.Sum256([]byte(id))
	return []byte(hex.EncodeToString(sum[:]))
}

func randomToken() (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}

// open starts a session and returns its id (for the cookie).
func (s *state) open(ctx context.Context, user, from string, maxAge time.Duration) (string, session, error) {
	id, err := randomToken()
	if err != nil {
		return "", session{}, fmt.Errorf("open session: %w", err)
	}
	csrf, err := randomToken()
	if err != nil {
		return "", session{}, fmt.Errorf("open session: %w", err)
	}
	now := s.now().UTC()
	ss := session{V: 1, User: user, From: from, Created: now, Seen: now, Checked: now, CSRF: csrf}
	v, err := json.Marshal(ss)
	if err != nil {
		return "", session{}, err
	}
	err = s.db.Update(ctx, func(tx kv.Tx) error {
		b := tx.Bucket(bucketSessions)
		if err := sweepSessions(b, now, maxAge); err != nil {
			return err
		}
		return b.Put(sessionKey(id), v)
	})
	if err != nil {
		return "", session{}, fmt.Errorf("open session: %w", err)
	}
	return id, ss, nil
}

// sweepSessionsMax bounds the sessions one sign-in removes.
const sweepSessionsMax = 200

// sweepSessions removes sessions older than maxAge (the absolute
// lifetime), a few at each sign-in, so the bucket stays small.
func sweepSessions(b kv.Bucket, now time.Time, maxAge time.Duration) error {
	var doomed [][]byte
	err := b.ForEach(func(k, v []byte) error {
		var ss session
		if json.Unmarshal(v, &ss) != nil || now.Sub(ss.Created) > maxAge {
			if len(doomed) < sweepSessionsMax {
				doomed = append(doomed, bytes.Clone(k))
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	for _, k := range doomed {
		if err := b.Delete(k); err != nil {
			return err
		}
	}
	return nil
}

// load finds a session by its cookie id.
func (s *state) load(ctx context.Context, id string) (session, bool, error) {
	var ss session
	found := false
	err := s.db.View(ctx, func(tx kv.Tx) error {
		v := tx.Bucket(bucketSessions).Get(sessionKey(id))
		if v == nil {
			return nil
		}
		found = true
		return json.Unmarshal(v, &ss)
	})
	if err != nil {
		return session{}, false, fmt.Errorf("load session: %w", err)
	}
	return ss, found, nil
}

// touch records activity (and a fresh admin check) on a session.
func (s *state) touch(ctx context.Context, id string, seen, checked time.Time) error {
	return s.db.Update(ctx, func(tx kv.Tx) error {
		b := tx.Bucket(bucketSessions)
		v := b.Get(sessionKey(id))
		if v == nil {
			return nil
		}
		var ss session
		if err := json.Unmarshal(v, &ss); err != nil {
			return err
		}
		ss.Seen = seen
		if !checked.IsZero() {
			ss.Checked = checked
		}
		out, err := json.Marshal(ss)
		if err != nil {
			return err
		}
		return b.Put(sessionKey(id), out)
	})
}

// close ends a session.
func (s *state) close(ctx context.Context, id string) error {
	return s.db.Update(ctx, func(tx kv.Tx) error { return tx.Bucket(bucketSessions).Delete(sessionKey(id)) })
}

// dismissal records that an admin set a proposal aside.
type dismissal struct {
	V  int       `json:"v"`
	By string    `json:"by"`
	At time.Time `json:"at"`
	// People is how many people held the meaning then; the proposal comes
	// back when more do.
	People int `json:"people"`
}

func (s *state) dismiss(ctx context.Context, key string, d dismissal) error {
	d.V = 1
	v, err := json.Marshal(d)
	if err != nil {
		return err
	}
	return s.db.Update(ctx, func(tx kv.Tx) error { return tx.Bucket(bucketDismissed).Put([]byte(key), v) })
}

func (s *state) dismissals(ctx context.Context) (map[string]dismissal, error) {
	out := map[string]dismissal{}
	err := s.db.View(ctx, func(tx kv.Tx) error {
		return tx.Bucket(bucketDismissed).ForEach(func(k, v []byte) error {
			var d dismissal
			if err := json.Unmarshal(v, &d); err != nil {
				return fmt.Errorf("dismissal %q: %w", k, err)
			}
			out[string(k)] = d
			return nil
		})
	})
	return out, err
}

// sameToken compares secrets in constant time.
func sameToken(a, b string) bool {
	return a != "" && subtle.ConstantTimeCompare([]byte(a), []byte(b)) == 1
}

// LinkURL is the sign-in URL of a token under base (the console's public
// address, with its prefix).
func linkURL(base string, token string) string {
	return strings.TrimSuffix(base, "/") + "/login?t=" + url.QueryEscape(token)
}
