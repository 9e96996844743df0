"""The checks of the AWS names a template hands to EC2: each must look like what EC2 accepts."""

from django.core.validators import RegexValidator
from django.utils.translation import gettext_lazy as _

AWS_ID = _("Enter an EC2 id: its kind, a hyphen and 8 to 17 hexadecimal digits (as sg-0123456789abcdef0).")


def _aws_id(prefix: str) -> RegexValidator:
    return RegexValidator(rf"^{prefix}-[0-9a-f]{{8,17}}$", AWS_ID)


validate_region = RegexValidator(r"^[a-z]{2}(-[a-z]+)+-\d$", _("Enter an AWS region, as ap-northeast-1."))
validate_instance_type = RegexValidator(
    r"^[a-z][a-z0-9-]*\.[a-z0-9]+$", _("Enter an EC2 instance type, as m5a.8xlarge.")
)
validate_image_id = _aws_id("ami")
validate_subnet_id = _aws_id("subnet")
validate_security_group_id = _aws_id("sg")
validate_key_name = RegexValidator(r"^[A-Za-z0-9 ._:/@=+-]{1,255}$", _("Enter the name of an EC2 key pair."))
