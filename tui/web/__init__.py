"""The desk served to browsers (`gradedesk serve`): textual-serve's web server, guarded so only the desk's own people
reach it. In: the command each browser's desk runs, where to listen, the address browsers open, a cap on desks and
an optional secret token. Out: a running web server (desk_server.py) that ends its desks when it stops, the page it
serves (templates/), and the served desk's driver (served_driver.py: a desk whose server is gone quits)."""
