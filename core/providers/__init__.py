"""Chat messages in, answers out: any OpenAI-compatible chat-completions endpoint (openai_compat.py: bounded concurrency,
retries, token usage and prices) or the offline extractive answerer, chosen by make_provider from the flags."""
