"""What the test tiers and the benchmarks share: paths, the streamlit server and Chromium, generated log roots,
the object-store server, the real-data golden cases, browser geometry."""
