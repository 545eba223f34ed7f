package ui

import (
	"net/http"

	"github.com/proctor-eval/proctor/report"
)

// leaderboardView is the body of the leaderboard page: one board per
// domain asked for (every known domain with a completed evaluation when
// none is).
type leaderboardView struct {
	Domain, Split string
	Latest        bool
	Domains       []string
	Boards        []report.Leaderboard
	NoDatabase    bool
}

// leaderboard ranks the agents evaluated on a domain by pass^1 with its
// 95% interval (report.NewLeaderboard, as proctor leaderboard does), each
// row linked to the evaluation it stands for: ?domain=D, ?split=S,
// ?latest=1 for each agent's latest evaluation rather than its best.
func (h *Handler) leaderboard(w http.ResponseWriter, r *http.Request) {
	v := leaderboardView{Domains: knownDomains()}
	var latest string
	for name, dst := range map[string]*string{"domain": &v.Domain, "split": &v.Split, "latest": &latest} {
		val, err := param(r, name)
		if err != nil {
			h.fail(w, r, http.StatusBadRequest, "%v", err)
			return
		}
		*dst = val
	}
	v.Latest = latest != "" && latest != "0" && latest != "false"
	db := h.dbOf(r)
	if db == nil {
		v.NoDatabase = true
		h.render(w, r, "leaderboard", "Leaderboard", "leaderboard", v)
		return
	}
	domains := v.Domains
	if v.Domain != "" {
		domains = []string{v.Domain}
	}
	for _, d := range domains {
		evals, err := h.results(db).Completed(r.Context(), d, v.Split)
		if err != nil {
			h.storeFail(w, r, err)
			return
		}
		if len(evals) == 0 && v.Domain == "" {
			continue
		}
		v.Boards = append(v.Boards, report.NewLeaderboard(evals, report.LeaderboardOptions{Domain: d, Split: v.Split, Latest: v.Latest}))
	}
	h.render(w, r, "leaderboard", "Leaderboard", "leaderboard", v)
}
