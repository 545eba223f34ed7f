/*
Package measure holds what proctor measures of the exchanges it makes, as
plain data: one [Request] to the agent under evaluation (latency, status,
bytes, tokens, the class of its failure) and one [LLMCall] to a language
model proctor itself uses (user simulator, judge), summed per role into
[LLMUsage].

It is a leaf: the protocol clients that take the measurements (a2aclient,
ecp, llm) and the result model that stores them (result) all import it,
and it imports nothing of proctor's, so reading a result never pulls in a
protocol client or a model SDK.
*/
package measure
