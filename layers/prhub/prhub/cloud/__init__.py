"""The AWS edge (adapters): the run store (`store`, composed of `runs`, `results`, `budget`, `publications`
and `judgements` on shared `tables`), the one cache (`cache`), DynamoDB's codec (`dynamo`), SQS
(`queue`), S3 and CloudFront (`aws`), Secrets Manager (`secrets`), metrics and tracing. May import `core`;
never `flow`."""
