// Code generated from tau2-bench's mock user tools; DO NOT EDIT.
// At a2c024725189473d2d7cea3a5cfdbcc67478e41f: their signatures and docstrings
// through tau2's as_tool, the openai_schema its user simulator sends.
// rollout's TestTau2UserSendsTau2Requests checks them against the tools tau2
// sent (rollout/testdata/tau2user, made by capture.py there).

package mock

// userToolSpecs are the user's tools as tau2 gives them to its user
// simulator, in tau2's order: name, description, JSON Schema of the parameters.
var userToolSpecs = []struct{ Name, Description, Parameters string }{
	{Name: "check_notifications", Description: "Check all notifications in the user's inbox.", Parameters: "{\"properties\": {}, \"title\": \"parameters\", \"type\": \"object\"}"},
	{Name: "dismiss_notification", Description: "Dismiss (mark as read) a notification.", Parameters: "{\"properties\": {\"notification_id\": {\"description\": \"The ID of the notification to dismiss.\", \"title\": \"Notification Id\", \"type\": \"string\"}}, \"required\": [\"notification_id\"], \"title\": \"parameters\", \"type\": \"object\"}"},
}
