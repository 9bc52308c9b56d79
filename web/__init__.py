"""The web page served at `/`: its HTML, style sheet and native ES modules, and a view per kind of game
(`views/<family>.js`), shipped as this package's data. The REST app finds the folder through
importlib.resources and serves whatever is in it: no kind is named outside its view."""
