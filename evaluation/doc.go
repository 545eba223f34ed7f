/*
Package evaluation runs evaluations, of simulations and of eval-set cases,
with one [Runner]: it plans the trials of an evaluation (every task x
trial, case x trial, or the share of them a shard owns), plays them with
bounded concurrency, scores each as it ends, stores every finished trial in
its own transaction, and resumes an interrupted evaluation without playing
again what it finished. The two kinds differ only in what plugs in: a
rollout.Simulator and a scoring.Scorer for simulations ([Runner.Run]), a
[CaseRecorder] and a [CaseScorer] for cases ([Runner.RunCases]).

[Rescore] and [RescoreEvalSets] score a stored evaluation's recorded trials
again, under other scoring settings (strict mode, another judge, other
metrics), into a new evaluation that names its source: nothing is played.
[Load] and [LoadEvalSetRun] read a stored evaluation back, with the scores
of an unfinished one recomputed from the trials it kept.

The data flows one way: rollout records, scoring scores, this package
assembles the result model (package result) and hands it to the store; the
reports, the CLI and the server read results without this package. See
docs/architecture.md for the vocabulary and the runner's flow.
*/
package evaluation
