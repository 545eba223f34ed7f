module github.com/proctor-eval/proctor

go 1.26.8
