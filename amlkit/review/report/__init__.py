"""The report formats, reading only amlkit.review.model: the table (pulumi's Policies section,
`table`), JSON (`json`), SARIF (`sarif`, which places findings on stack-file lines with `locate`),
Markdown (`markdown`), the create-only preview tree (`resources`) and a plan against a base in each
format (`changes`)."""

__all__: list[str] = []
