"""The web page served at `/` and the offline docs, in headless Chromium over a real server and database."""
