package install

// Where the data comes from: tau2-bench at the commit proctor's tau2 domains
// reproduce.
const (
	// Repository is tau2-bench's GitHub repository.
	Repository = "sierra-research/tau2-bench"
	// Commit is the tau2-bench commit whose data is installed (T2-HEAD).
	Commit = "a2c024725189473d2d7cea3a5cfdbcc67478e41f"
	// DefaultBaseURL is the raw GitHub URL of that commit's
	// data/tau2/domains directory. File URLs are BaseURL/<domain>/<file>.
	DefaultBaseURL = "https://raw.githubusercontent.com/" + Repository + "/" + Commit + "/data/tau2/domains"
)

// LicenseFile is tau2-bench's licence (MIT), installed at the top of the
// data directory beside the domains. Its URL is the repository root's
// LICENSE, found from the base URL (see [FileURL]).
const LicenseFile = "LICENSE"

// GuidelinesDir is the directory of tau2's user simulator guidelines in an
// installation: tau2 keeps them in data/tau2/user_simulator, beside
// data/tau2/domains; an installation, which stands for data/tau2/domains,
// holds them in its user_simulator subdirectory. Their URL is found from the
// base URL as the licence's is (see [FileURL]).
const GuidelinesDir = "user_simulator"

// File is one file of the installation: its path in the data directory
// (slash-separated, "airline/db.json"), its size in bytes and its SHA-256.
type File struct {
	Path   string
	Size   int64
	SHA256 string
}

// Domains returns the tau2 domains installed (their directory names), in
// install order.
func Domains() []string {
	return []string{"airline", "retail", "mock", "telecom", "banking_knowledge"}
}

// files lists every installed file with the size and SHA-256 of tau2-bench's
// blob at Commit. They are facts about tau2's files, taken from the data
// manifests (shared/tau2/MANIFEST.md, and banking_knowledge's own); the
// files themselves are never part of proctor.
func files() []File { return append(coreFiles(), bankingFiles()...) }

// coreFiles are the licence, the user simulator's guidelines and the files
// of airline, retail, mock and telecom.
func coreFiles() []File {
	return []File{
		{LicenseFile, 1072, "e67c5aa0074dfcaefd3c3a1aedb94cb539234aecd15d5a972574e3200e6252fe"},

		// The user simulator's guidelines (rollout/tau2user holds the same bytes).
		{GuidelinesDir + "/simulation_guidelines.md", 1449, "740a29dfa64d7bc08eea3bf7493575b914a63f744acbaf7f199ee07eddaf72d3"},
		{GuidelinesDir + "/simulation_guidelines_tools.md", 2747, "cbf3d8a4d8642fd04e559862f1afef55d7dd4e6a7e727ca49e239023c599de0c"},

		{"airline/db.json", 7042725, "1af9fea6e03ca7ca15a22bb3fcaf3e351393e3fc9070b6777947da8996f7531b"},
		{"airline/policy.md", 7676, "10dc0525421521208be39cee235bba84a16e2bcba9899eb93d92cd81d2f62fc4"},
		{"airline/split_tasks.json", 1443, "b22ced4d9a9850ac9aea31c53bdcb6d6009058140bd9acc7db37c1d36222ba8b"},
		{"airline/tasks.json", 155528, "ccd8ba737b4cc371415af70151187788f728d6108d0916e73bb4317b40542052"},

		{"retail/db.json", 2811616, "413a65160adbdb5fde0ffc0015c49b6d70250b10c18128de169b597af7766765"},
		{"retail/policy.md", 6699, "2c9652afbce57d6e087768d37cda64d31c53d50b3e3225cfdb791bac66466467"},
		{"retail/split_tasks.json", 3263, "ed0580ec52575b63fbf76568af42490da6ee7783ecb4aa81af46961291358f20"},
		{"retail/tasks.json", 345982, "8e03ebce7901bd6218e7a7dc3105faa9324091a68058f7fe61c65262868812e8"},

		{"mock/db.json", 281, "8661f80b4c693bb15ef2fe6781d24a5765240d61fc74387c770133953f9113ea"},
		{"mock/user_db.json", 203, "78d424b5177e430b7f483787a956ad3a6a0880e8e5b312be8e373b15c876d51f"},
		{"mock/policy.md", 278, "50ccbefac7c9ba77ce54131d61cfc6882f74b88ace66771115f9d867ec098203"},
		{"mock/policy_solo.md", 224, "2608375977bdeedd9cf34ab437b213403c8e97e9929d5094338355a994ac0c86"},
		{"mock/split_tasks.json", 416, "613c3298e6fd3cf03f71f848ecee519068eb4df54a1ceb28596f5aa443ee6581"},
		{"mock/tasks.json", 14134, "0d8bcd14798bf2e6e082432147f62570c57b0897b4e4e388c95bb02ecbe5d8cf"},

		{"telecom/db.toml", 9628, "562d647ef9d7df8df91eafd8ee76036e707c8f9e32aaedc4a7fde06975aea2c0"},
		{"telecom/user_db.toml", 933, "4886107ea0c16f8e16d74bef91cfb557de61822afe9361f5a9b241806aea2e4c"},
		{"telecom/main_policy.md", 5699, "95943844a0cf11fdf0e2842b483b81d9f9338aa53235712ed131db075d086ed7"},
		{"telecom/main_policy_solo.md", 5200, "781296ae5419169cb64aac0c4fa2aa6129c78f3c1592f64abd80df6fbabb7042"},
		{"telecom/tech_support_manual.md", 17589, "015a3ee49ec8c199c5e1a059c922081937b92cf3a5ea74fedbc4357816f389ba"},
		{"telecom/tech_support_workflow.md", 16390, "64f3ccd13875d14f358b21b9af221dab09e0e7bf5690d0e4322fb91855a43a4d"},
		{"telecom/tech_support_workflow_solo.md", 15470, "b174d1f9705b5d7df49468daf99560a5633f86d23e10499a1166a7753706a412"},
		{"telecom/split_tasks.json", 356149, "605b488bb9a6acb3c7f4505240a855fdc8681d09aadb16a8f38b2efcfc5c3aec"},
		{"telecom/tasks.json", 13977063, "37e562e1ae3242577407e1303b1548bc64e7ea68e37d36173e6747990ceaf8a4"},
		{"telecom/tasks_small.json", 83833, "c8ea6f75adc18a8ad363974292cbd26b6e8b0e348ec87d265a4188e0088a8f24"},
	}
}

// Files returns every file an installation holds, in install order.
func Files() []File { return files() }
