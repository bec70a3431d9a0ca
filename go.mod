module github.com/gpureplay/gpureplay

go 1.22

require (
	github.com/apache/arrow/go/v15 v15.0.2 // indirect
	github.com/klauspost/compress v1.20.3 // indirect
	github.com/spf13/pflag v1.0.10 // indirect
)
