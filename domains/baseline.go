package domains

// FreshHash returns the database hash of a fresh environment for the task
// (its initialization actions applied, nothing else): the state an agent
// that never calls a tool leaves. A task whose FreshHash equals its
// GoldHash does not need the agent to change anything. A nil task is the
// domain's initial database.
func (d *Domain) FreshHash(task *Task) (string, error) {
	env, err := d.NewEnv(task)
	if err != nil {
		return "", err
	}
	return env.Hash()
}
