// Placeholder until the dashboard page lands (branch dash-web): shows that the API answers.
fetch("/api/state", { credentials: "same-origin" })
	.then((res) => res.json())
	.then((state) => {
		document.getElementById("status").textContent =
			`${state.tasks.length} tasks, last event ${state.last_event_id}`;
	});
