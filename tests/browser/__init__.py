"""A real ``streamlit run`` in headless Chromium (marked ``browser``)."""
