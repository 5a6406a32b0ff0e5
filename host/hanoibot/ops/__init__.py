"""The operations every front end calls (see DESIGN.md, decision 16)."""
