"""bench-formats: suite loaders for promptfoo, youBencha, AgentClash and AI Eval files."""
