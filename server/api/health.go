package api

import (
	"time"

	"twofold/server/errcode"

	"github.com/valyala/fasthttp"
)

// Health is what GET /api/health reports: the server's version, since when it runs, and whether its store answers.
type Health struct {
	Version string
	Started time.Time
	Store   func() error // nil: the server has no store to check
}

// HealthData is the answer of a healthy server.
type HealthData struct {
	Status        string `json:"status"`
	Store         string `json:"store"`
	Version       string `json:"version"`
	UptimeSeconds int64  `json:"uptimeSeconds"`
}

// getHealth answers 200 when the store answers a read, and 503 STORE_UNAVAILABLE when it does not. Never cached.
func (s *Server) getHealth(ctx *fasthttp.RequestCtx) {
	h := s.health
	d := HealthData{Status: "ok", Store: "ok", Version: h.Version}
	if !h.Started.IsZero() {
		d.UptimeSeconds = int64(time.Since(h.Started).Seconds())
	}
	if h.Store == nil {
		d.Store = "none"
	} else if err := h.Store(); err != nil {
		s.log.Warn("health: the store does not answer", "err", err)
		s.writeError(ctx, errcode.New(errcode.StoreUnavailable, "the store does not answer: the board is unavailable, the rest of the site serves",
			"check DATA_DIR and the server's log"))
		return
	}
	s.writeData(ctx, fasthttp.StatusOK, d)
}
