"""The AWS edge (adapters): runs and results (`store`), the one cache (`cache`), DynamoDB's codec (`dynamo`), SQS
(`queue`), S3 and CloudFront (`aws`), Secrets Manager (`secrets`), metrics and tracing. May import `core`;
never `flow`."""
