package telecom

import (
	"sync"
	"testing"

	"github.com/proctor-eval/proctor/domains"
	"github.com/proctor-eval/proctor/internal/tau2test"
)

// TestEveryTask sets up all 2285 tasks and replays their gold actions: tau2
// itself replays them without an error (domains-spec.md 6, telecom 0 of
// 13215) and its gold environments pass every env assertion.
func TestEveryTask(t *testing.T) {
	d, _ := testDomain(t, "full")
	if len(d.Tasks) != 2285 {
		t.Fatalf("%d tasks, want 2285", len(d.Tasks))
	}
	actions, asserts, failed := 0, 0, 0
	for i := range d.Tasks {
		task := &d.Tasks[i]
		env, err := d.NewEnv(task)
		if err != nil {
			t.Errorf("%s: %v", task.ID, err)
			failed++
			continue
		}
		for _, a := range task.EvaluationCriteria.Actions {
			actions++
			if res := env.Call(domains.ToolCall{Name: a.Name, Arguments: a.Arguments, Requestor: a.Requestor}); res.Error {
				t.Errorf("%s: %s: %s", task.ID, a.ActionID, res.Content)
				failed++
			}
		}
		for _, a := range task.EvaluationCriteria.EnvAssertions {
			asserts++
			if ok, err := domains.CheckEnvAssertion(env, a); err != nil || ok != a.Expected() {
				t.Errorf("%s: env assertion %s(%v) = %v, %v", task.ID, a.FuncName, a.Arguments, ok, err)
				failed++
			}
		}
	}
	t.Logf("%d tasks, %d gold actions, %d env assertions; %d failures", len(d.Tasks), actions, asserts, failed)
	if actions != 13215 {
		t.Errorf("%d gold actions, tau2 counts 13215", actions)
	}
}

// TestConcurrentEnvironments runs simulations of every base task at once:
// each environment is a deep copy, so they share nothing a tool changes
// (go test -race checks it) and the template keeps its fresh hashes.
func TestConcurrentEnvironments(t *testing.T) {
	d, _ := testDomain(t, "base")
	var wg sync.WaitGroup
	for i := range d.Tasks {
		task := &d.Tasks[i]
		wg.Go(func() {
			for range 2 {
				env, err := d.NewEnv(task)
				if err != nil {
					t.Error(err)
					return
				}
				for _, a := range task.EvaluationCriteria.Actions {
					env.Call(domains.ToolCall{Name: a.Name, Arguments: a.Arguments, Requestor: a.Requestor})
				}
				env.Call(domains.ToolCall{Name: "refuel_data", Arguments: map[string]any{"customer_id": "C1002", "line_id": "L1004", "gb_amount": 1.0}})
				env.Call(domains.ToolCall{Name: "grant_app_permission", Requestor: "user", Arguments: map[string]any{"app_name": "browser", "permission": "sms"}})
				env.Call(domains.ToolCall{Name: "connect_vpn", Requestor: "user"})
				if _, err := env.Hash(); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	env, err := d.NewEnv(nil)
	if err != nil {
		t.Fatal(err)
	}
	if a, u, _ := domains.SideHashes(env); a != freshHash || u != freshUserHash {
		t.Errorf("fresh hashes changed after concurrent simulations: %s / %s", a, u)
	}
}

// TestClonesShareNothing changes every kind of record of a clone and
// checks that the original keeps its hash.
func TestClonesShareNothing(t *testing.T) {
	dir := tau2test.Dir(t, "telecom")
	agentJSON, err := readTOML(dir, DBFile)
	if err != nil {
		t.Fatal(err)
	}
	userJSON, err := readTOML(dir, UserDBFile)
	if err != nil {
		t.Fatal(err)
	}
	var db DB
	var udb UserDB
	if err := db.UnmarshalJSON(agentJSON); err != nil {
		t.Fatal(err)
	}
	if err := udb.UnmarshalJSON(userJSON); err != nil {
		t.Fatal(err)
	}
	c, u := db.Clone(), udb.Clone()
	c.Customers[0].BillIDs[0] = "x"
	c.Customers[0].LineIDs[0] = "x"
	c.Customers[0].PaymentMethods[0].MethodType = "x"
	*c.Customers[1].LastExtensionDate = "x"
	c.Customers[0].Address.City = "x"
	c.Lines[0].Status = "x"
	*c.Lines[0].ContractEndDate = "x"
	*c.Lines[0].DeviceID = "x"
	c.Bills[0].LineItems[0].Amount = 1
	*c.Devices[0].IMEI = "x"
	*c.Devices[0].ActivationDate = "x"
	c.Plans[0].Name = "x"
	u.Device.AppStatuses.m["messaging"].Permissions.SMS = false
	*u.Device.ActiveAPNSettings.MMSCURL = "x"
	u.Surroundings.SignalStrength[Tech5G] = SignalNone
	name := "x"
	u.Surroundings.Name = &name
	if h, _ := db.Hash(); h != freshHash {
		t.Error("changing a clone changed the agent database")
	}
	if h, _ := udb.Hash(); h != freshUserHash {
		t.Error("changing a clone changed the user database")
	}
}
