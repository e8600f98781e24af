// The door's one step that needs a script: once a code opened the door
// for an address, go on to create the account with that address.
const redeem = document.getElementById("redeem");
redeem?.addEventListener("redeemed", () => {
  const email = redeem.elements.email.value;
  location.assign("/sign-up?email=" + encodeURIComponent(email) + "&next=%2F");
});
