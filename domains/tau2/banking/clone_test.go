package banking

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/proctor-eval/proctor/internal/tau2test"
)

// decodeDB decodes db.json as NewDomain does for its template.
func decodeDB(t *testing.T) *DB {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(tau2test.Dir(t, Name), DBFile))
	if err != nil {
		t.Fatal(err)
	}
	db := new(DB)
	if err := json.Unmarshal(raw, db); err != nil {
		t.Fatal(err)
	}
	return db
}

// hashes returns a DB's hash and its full recomputation.
func hashes(t *testing.T, db *DB) (incremental, full string) {
	t.Helper()
	inc, err := db.Hash()
	if err != nil {
		t.Fatal(err)
	}
	full, err = db.FullHash()
	if err != nil {
		t.Fatal(err)
	}
	return inc, full
}

// randomEdit changes db as a tool or an initialization would: a field of
// a record (possibly a nested one), a new record, or a Merge of a record.
func randomEdit(r *rand.Rand, db *DB, step int) string {
	table := tableNames[r.IntN(len(tableNames))]
	ids := db.table(table).Data.Keys()
	if len(ids) == 0 || r.IntN(4) == 0 {
		id := fmt.Sprintf("new_%d", step)
		db.addRecord(table, id, objOf("id", id, "amount", r.Float64(), "n", int64(step)))
		return "add " + table + "/" + id
	}
	id := ids[r.IntN(len(ids))]
	switch r.IntN(3) {
	case 0:
		rec, _ := db.record(table, id)
		rec.Set("status", fmt.Sprintf("S%d", r.IntN(3))) // sometimes the value it had
		return "set " + table + "/" + id
	case 1:
		rec, _ := db.record(table, id)
		rec.Set("nested", objOf("k", []any{int64(step), "x"}))
		return "nest " + table + "/" + id
	}
	data := map[string]any{table: map[string]any{"data": map[string]any{id: map[string]any{"merged": json.Number(fmt.Sprint(step))}}}}
	if err := db.Merge(data); err != nil {
		panic(err)
	}
	return "merge " + table + "/" + id
}

// TestIncrementalHash checks the property incremental hashing rests on:
// after any sequence of edits, of clones and of clones of clones, a DB's
// hash is the full recomputation's, and the decoded database (the
// template) and the DBs cloned before an edit keep theirs.
func TestIncrementalHash(t *testing.T) {
	tmpl := decodeDB(t)
	_, pristine := hashes(t, tmpl)
	for seed := range uint64(20) {
		r := rand.New(rand.NewPCG(seed, 1))
		dbs := []*DB{tmpl.Clone()}
		want := []string{pristine}
		var log []string
		for step := range 30 {
			i := r.IntN(len(dbs))
			if r.IntN(5) == 0 {
				dbs, want = append(dbs, dbs[i].Clone()), append(want, want[i])
				log = append(log, fmt.Sprintf("clone %d", i))
				continue
			}
			log = append(log, fmt.Sprintf("%d: %s", i, randomEdit(r, dbs[i], step)))
			inc, full := hashes(t, dbs[i])
			if inc != full {
				t.Fatalf("seed %d: incremental hash %s, full %s after %v", seed, inc, full, log)
			}
			want[i] = full
			var got []string
			for _, db := range dbs {
				_, full := hashes(t, db)
				got = append(got, full)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Fatalf("seed %d: an edit of DB %d reached another (-want +got):\n%s\nafter %v", seed, i, diff, log)
			}
		}
	}
	if _, full := hashes(t, tmpl); full != pristine {
		t.Error("the decoded database changed")
	}
}

// TestMergeErrors checks that Merge refuses, as the validation of the
// merged dump would, data that leaves the database invalid, and changes
// nothing then.
func TestMergeErrors(t *testing.T) {
	db := decodeDB(t).Clone()
	_, before := hashes(t, db)
	cases := []struct {
		data map[string]any
		want string
	}{
		{map[string]any{"nope": map[string]any{}}, `banking database: unknown table "nope" (tau2's TransactionalDB forbids extra fields)`},
		{map[string]any{"users": "x"}, "banking database: table users is not an object"},
		{map[string]any{"users": map[string]any{"data": []any{}}}, "banking database: users.data is not an object"},
		{map[string]any{"users": map[string]any{"data": map[string]any{"u1": "x"}}}, `banking database: users.data["u1"] is not an object`},
		{map[string]any{"users": map[string]any{"notes": json.Number("1")}}, "banking database: users.notes is not a string"},
		{map[string]any{"users": map[string]any{"extra": true}}, `banking database: table users has unknown field "extra"`},
	}
	var got, want []string
	for _, c := range cases {
		err := db.Merge(c.data)
		got, want = append(got, fmt.Sprint(err)), append(want, c.want)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("errors (-want +got):\n%s", diff)
	}
	if inc, full := hashes(t, db); inc != before || full != before {
		t.Error("a refused merge changed the database")
	}
	if err := db.Merge(map[string]any{"users": map[string]any{"notes": "changed"}}); err != nil {
		t.Fatal(err)
	}
	if inc, full := hashes(t, db); inc != full || full == before {
		t.Errorf("changed notes: incremental %s, full %s", inc, full)
	}
}
