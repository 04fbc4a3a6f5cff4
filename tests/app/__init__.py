"""The pages through Streamlit's AppTest and the real navigation of streamlit_app.py."""
