"""Transfer: a conversation out of the playground and into it.

Inside: ``exporting`` (the request body and the Markdown transcript), ``snippets`` (the request
as a runnable curl command or Python script), ``importing`` (a Messages request body in, a
conversation out) and ``views`` (their JSON endpoints). Callers import the modules by name
(``from playground.transfer import exporting``).
"""
